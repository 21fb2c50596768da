"""``python -m condacuda ARGS``: runs the installed condacuda binary with ARGS
in place of this process (os.execv), so its exit status is the command's."""
import os
import sys

from . import binary_path


def main():
    try:
        path = binary_path()
        os.execv(path, [path] + sys.argv[1:])
    except OSError as e:
        # The shell's statuses: 127 not found, 126 found but not runnable.
        sys.stderr.write("condacuda: cannot run the condacuda binary: %s\n" % e)
        return 127 if isinstance(e, FileNotFoundError) else 126
    return 0  # not reached: execv replaces this process


if __name__ == "__main__":
    sys.exit(main())
