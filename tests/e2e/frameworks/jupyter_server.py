#!/usr/bin/env python3
"""A Jupyter "server" made of Debian's real jupyter_client (7.4.9):

    jupyter_server.py run KERNEL CODE   start the kernel as a server does
                                        (KernelManager, this process's
                                        environment), run CODE, print
                                        {"status", "ename", "evalue"}
    jupyter_server.py serve             stand as a running server: write the
                                        runtime file a jupyter_server writes
                                        (jpserver-PID.json in
                                        jupyter_runtime_dir()), then wait for
                                        stdin to close, and remove it

A real notebook server is not in Debian 12's python3 set; what condacuda
reads of one is exactly this: the runtime file's pid (jupyter_server's
serverapp.py write_server_info_file, server_info: "pid", "url", ...) and
that process's environment.
"""
import json
import os
import sys


def run(kernel, code):
    from jupyter_client.manager import start_new_kernel
    km, kc = start_new_kernel(kernel_name=kernel, startup_timeout=60)
    try:
        reply = kc.execute_interactive(code, timeout=60, output_hook=lambda m: None)
        content = reply["content"]
        print(json.dumps({"status": content["status"], "ename": content.get("ename"), "evalue": content.get("evalue")}),
              flush=True)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    os._exit(0)  # jupyter_client's finalizers log after logging is gone: stop here


def serve():
    from jupyter_core.paths import jupyter_runtime_dir
    runtime = jupyter_runtime_dir()
    os.makedirs(runtime, exist_ok=True)
    path = os.path.join(runtime, "jpserver-%d.json" % os.getpid())
    info = {"base_url": "/", "hostname": "localhost", "password": False, "pid": os.getpid(), "port": 8888,
            "root_dir": os.getcwd(), "secure": False, "sock": "", "token": "", "url": "http://localhost:8888/",
            "version": "2.0.0"}
    with open(path, "w") as f:
        json.dump(info, f)
    print(path, flush=True)
    sys.stdin.read()
    os.unlink(path)


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        serve()
