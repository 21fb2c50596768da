#pragma once
// The ELF constants condacuda reads (System V gABI, glibc's elf.h). Named here
// rather than taken from <elf.h> so the core builds on any host.
#include <cstdint>

namespace condacuda::elf {

inline constexpr std::uint8_t elfclass32 = 1;
inline constexpr std::uint8_t elfclass64 = 2;
inline constexpr std::uint8_t elfdata2lsb = 1;
inline constexpr std::uint8_t elfdata2msb = 2;
inline constexpr std::uint8_t ev_current = 1;
inline constexpr std::uint8_t elfosabi_sysv = 0;
inline constexpr std::uint8_t elfosabi_gnu = 3;

inline constexpr std::uint16_t et_exec = 2;
inline constexpr std::uint16_t et_dyn = 3;

inline constexpr std::uint16_t em_x86_64 = 62;
inline constexpr std::uint16_t em_aarch64 = 183;

inline constexpr std::uint32_t pt_load = 1;
inline constexpr std::uint32_t pt_dynamic = 2;
inline constexpr std::uint32_t pt_note = 4;
inline constexpr std::uint32_t pt_phdr = 6;
inline constexpr std::uint32_t pt_gnu_stack = 0x6474e551;
inline constexpr std::uint32_t pt_gnu_relro = 0x6474e552;
inline constexpr std::uint32_t pf_x = 1;

inline constexpr std::uint32_t sht_dynsym = 11;

inline constexpr std::int64_t dt_null = 0;
inline constexpr std::int64_t dt_needed = 1;
inline constexpr std::int64_t dt_pltrelsz = 2;
inline constexpr std::int64_t dt_pltgot = 3;
inline constexpr std::int64_t dt_hash = 4;
inline constexpr std::int64_t dt_strtab = 5;
inline constexpr std::int64_t dt_symtab = 6;
inline constexpr std::int64_t dt_rela = 7;
inline constexpr std::int64_t dt_relasz = 8;
inline constexpr std::int64_t dt_relaent = 9;
inline constexpr std::int64_t dt_strsz = 10;
inline constexpr std::int64_t dt_syment = 11;
inline constexpr std::int64_t dt_init = 12;
inline constexpr std::int64_t dt_fini = 13;
inline constexpr std::int64_t dt_soname = 14;
inline constexpr std::int64_t dt_rpath = 15;
inline constexpr std::int64_t dt_symbolic = 16;
inline constexpr std::int64_t dt_rel = 17;
inline constexpr std::int64_t dt_relsz = 18;
inline constexpr std::int64_t dt_relent = 19;
inline constexpr std::int64_t dt_pltrel = 20;
inline constexpr std::int64_t dt_textrel = 22;
inline constexpr std::int64_t dt_jmprel = 23;
inline constexpr std::int64_t dt_bind_now = 24;
inline constexpr std::int64_t dt_init_array = 25;
inline constexpr std::int64_t dt_fini_array = 26;
inline constexpr std::int64_t dt_init_arraysz = 27;
inline constexpr std::int64_t dt_fini_arraysz = 28;
inline constexpr std::int64_t dt_runpath = 29;
inline constexpr std::int64_t dt_flags = 30;
inline constexpr std::int64_t dt_relrsz = 35;
inline constexpr std::int64_t dt_relr = 36;
inline constexpr std::int64_t dt_relrent = 37;
inline constexpr std::int64_t dt_gnu_hash = 0x6ffffef5;
inline constexpr std::int64_t dt_versym = 0x6ffffff0;
inline constexpr std::int64_t dt_relacount = 0x6ffffff9;
inline constexpr std::int64_t dt_flags_1 = 0x6ffffffb;
inline constexpr std::int64_t dt_verdef = 0x6ffffffc;
inline constexpr std::int64_t dt_verdefnum = 0x6ffffffd;
inline constexpr std::int64_t dt_verneed = 0x6ffffffe;
inline constexpr std::int64_t dt_verneednum = 0x6fffffff;
inline constexpr std::int64_t dt_auxiliary = 0x7ffffffd;
inline constexpr std::int64_t dt_filter = 0x7fffffff;

inline constexpr std::uint64_t df_symbolic = 0x2;
inline constexpr std::uint64_t df_textrel = 0x4;
inline constexpr std::uint64_t df_bind_now = 0x8;
inline constexpr std::uint64_t df_1_now = 0x1;
inline constexpr std::uint64_t df_1_global = 0x2;
inline constexpr std::uint64_t df_1_nodeflib = 0x800;
inline constexpr std::uint64_t df_1_pie = 0x08000000;

inline constexpr std::uint16_t shn_undef = 0;
inline constexpr std::uint16_t shn_abs = 0xfff1;
inline constexpr std::uint16_t shn_common = 0xfff2;

inline constexpr std::uint8_t stt_notype = 0;
inline constexpr std::uint8_t stt_object = 1;
inline constexpr std::uint8_t stt_func = 2;
inline constexpr std::uint8_t stt_common = 5;
inline constexpr std::uint8_t stt_tls = 6;
inline constexpr std::uint8_t stt_gnu_ifunc = 10;

inline constexpr std::uint8_t stb_local = 0;
inline constexpr std::uint8_t stb_global = 1;
inline constexpr std::uint8_t stb_weak = 2;
inline constexpr std::uint8_t stb_gnu_unique = 10;

inline constexpr std::uint8_t stv_default = 0;
inline constexpr std::uint8_t stv_internal = 1;
inline constexpr std::uint8_t stv_hidden = 2;
inline constexpr std::uint8_t stv_protected = 3;

inline constexpr std::uint16_t ver_flg_base = 0x1;
inline constexpr std::uint16_t ver_flg_weak = 0x2;
inline constexpr std::uint16_t versym_hidden = 0x8000;

// x86-64 relocation types that name a PLT slot (resolved lazily unless bound now).
inline constexpr std::uint32_t r_x86_64_jump_slot = 7;
inline constexpr std::uint32_t r_aarch64_jump_slot = 1026;

} // namespace condacuda::elf
