#include "check/ptx.hpp"

namespace condacuda::check {

namespace {
// Hand-written so that it needs no CUDA compiler and stays at PTX ISA 7.0;
// its instructions exist on every architecture from sm_50 (probe_ptx sets
// the .target).
// cc_unit is check/hash.hpp's element_value(key, idx) step for step; the
// explicit .rn on mul/sub keeps ptxas from contracting them into an fma
// (exact here anyway). Every kernel is a grid-stride loop over a u64 index;
// the hash takes its low 32 bits (sizes stay below 2^32 elements).
constexpr char ptx_text[] = R"PTX(//
// condacuda check module (src/check/ptx.cpp)
.version 7.0
.target sm_75
.address_size 64

.func (.param .b32 cc_ret) cc_unit(.param .b32 cc_key, .param .b32 cc_idx)
{
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  ld.param.u32 %r1, [cc_key];
  ld.param.u32 %r2, [cc_idx];
  // mix32(idx)
  shr.u32 %r3, %r2, 16;
  xor.b32 %r2, %r2, %r3;
  mul.lo.u32 %r2, %r2, 0x7feb352d;
  shr.u32 %r3, %r2, 15;
  xor.b32 %r2, %r2, %r3;
  mul.lo.u32 %r2, %r2, 0x846ca68b;
  shr.u32 %r3, %r2, 16;
  xor.b32 %r2, %r2, %r3;
  // mix32(mix32(idx) + key)
  add.u32 %r2, %r2, %r1;
  shr.u32 %r3, %r2, 16;
  xor.b32 %r2, %r2, %r3;
  mul.lo.u32 %r2, %r2, 0x7feb352d;
  shr.u32 %r3, %r2, 15;
  xor.b32 %r2, %r2, %r3;
  mul.lo.u32 %r2, %r2, 0x846ca68b;
  shr.u32 %r3, %r2, 16;
  xor.b32 %r2, %r2, %r3;
  // (h >> 8) * 2^-23 - 1
  shr.u32 %r4, %r2, 8;
  cvt.rn.f32.u32 %f1, %r4;
  mul.rn.f32 %f2, %f1, 0f34000000;
  sub.rn.f32 %f3, %f2, 0f3F800000;
  st.param.f32 [cc_ret], %f3;
  ret;
}

.visible .entry cc_fill_f32(.param .u64 cc_out, .param .u64 cc_n, .param .u32 cc_key)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<10>;
  .reg .f32 %f<2>;
  ld.param.u64 %rd1, [cc_out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [cc_n];
  ld.param.u32 %r1, [cc_key];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, %nctaid.x;
  mul.wide.u32 %rd3, %r2, %r3;
  cvt.u64.u32 %rd4, %r4;
  add.u64 %rd3, %rd3, %rd4;
  mul.wide.u32 %rd5, %r5, %r3;
FILL_F32_LOOP:
  setp.ge.u64 %p1, %rd3, %rd2;
  @%p1 bra FILL_F32_DONE;
  cvt.u32.u64 %r6, %rd3;
  {
    .param .b32 a0;
    .param .b32 a1;
    .param .b32 rv;
    st.param.b32 [a0], %r1;
    st.param.b32 [a1], %r6;
    call.uni (rv), cc_unit, (a0, a1);
    ld.param.f32 %f1, [rv];
  }
  shl.b64 %rd6, %rd3, 2;
  add.s64 %rd7, %rd1, %rd6;
  st.global.f32 [%rd7], %f1;
  add.u64 %rd3, %rd3, %rd5;
  bra.uni FILL_F32_LOOP;
FILL_F32_DONE:
  ret;
}

.visible .entry cc_fill_bf16(.param .u64 cc_out, .param .u64 cc_n, .param .u32 cc_key)
{
  .reg .pred %p<2>;
  .reg .b16 %rs<2>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<10>;
  .reg .f32 %f<2>;
  ld.param.u64 %rd1, [cc_out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [cc_n];
  ld.param.u32 %r1, [cc_key];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, %nctaid.x;
  mul.wide.u32 %rd3, %r2, %r3;
  cvt.u64.u32 %rd4, %r4;
  add.u64 %rd3, %rd3, %rd4;
  mul.wide.u32 %rd5, %r5, %r3;
FILL_BF16_LOOP:
  setp.ge.u64 %p1, %rd3, %rd2;
  @%p1 bra FILL_BF16_DONE;
  cvt.u32.u64 %r6, %rd3;
  {
    .param .b32 a0;
    .param .b32 a1;
    .param .b32 rv;
    st.param.b32 [a0], %r1;
    st.param.b32 [a1], %r6;
    call.uni (rv), cc_unit, (a0, a1);
    ld.param.f32 %f1, [rv];
  }
  // round to nearest even: (u + 0x7fff + ((u >> 16) & 1)) >> 16
  mov.b32 %r7, %f1;
  shr.u32 %r8, %r7, 16;
  and.b32 %r8, %r8, 1;
  add.u32 %r8, %r8, 32767;
  add.u32 %r7, %r7, %r8;
  shr.u32 %r7, %r7, 16;
  cvt.u16.u32 %rs1, %r7;
  shl.b64 %rd6, %rd3, 1;
  add.s64 %rd7, %rd1, %rd6;
  st.global.u16 [%rd7], %rs1;
  add.u64 %rd3, %rd3, %rd5;
  bra.uni FILL_BF16_LOOP;
FILL_BF16_DONE:
  ret;
}

// Row r holds per_row consecutive columns starting at
// min(max(r - per_row/2, 0), rows - per_row): a band around the diagonal,
// column indices sorted, exactly per_row entries in every row.
.visible .entry cc_fill_csr(.param .u64 cc_rowptr, .param .u64 cc_colind, .param .u64 cc_vals,
                            .param .u32 cc_rows, .param .u32 cc_per_row, .param .u32 cc_key)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<16>;
  .reg .f32 %f<2>;
  ld.param.u64 %rd1, [cc_rowptr];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [cc_colind];
  cvta.to.global.u64 %rd2, %rd2;
  ld.param.u64 %rd3, [cc_vals];
  cvta.to.global.u64 %rd3, %rd3;
  ld.param.u32 %r1, [cc_rows];
  ld.param.u32 %r2, [cc_per_row];
  ld.param.u32 %r3, [cc_key];
  // nnz = rows * per_row; the loop covers max(nnz, rows + 1)
  mul.wide.u32 %rd4, %r1, %r2;
  cvt.u64.u32 %rd5, %r1;
  add.u64 %rd5, %rd5, 1;
  max.u64 %rd6, %rd4, %rd5;
  shr.u32 %r4, %r2, 1;
  sub.u32 %r5, %r1, %r2;
  mov.u32 %r6, %ctaid.x;
  mov.u32 %r7, %ntid.x;
  mov.u32 %r8, %tid.x;
  mov.u32 %r9, %nctaid.x;
  mul.wide.u32 %rd7, %r6, %r7;
  cvt.u64.u32 %rd8, %r8;
  add.u64 %rd7, %rd7, %rd8;
  mul.wide.u32 %rd9, %r9, %r7;
FILL_CSR_LOOP:
  setp.ge.u64 %p1, %rd7, %rd6;
  @%p1 bra FILL_CSR_DONE;
  cvt.u32.u64 %r10, %rd7;
  // rowptr[i] = i * per_row for i < rows + 1
  setp.ge.u64 %p2, %rd7, %rd5;
  @%p2 bra FILL_CSR_ENTRY;
  mul.lo.u32 %r11, %r10, %r2;
  shl.b64 %rd10, %rd7, 2;
  add.s64 %rd11, %rd1, %rd10;
  st.global.u32 [%rd11], %r11;
FILL_CSR_ENTRY:
  setp.ge.u64 %p1, %rd7, %rd4;
  @%p1 bra FILL_CSR_NEXT;
  // r = i / per_row, j = i - r * per_row, start = min(max(r - half, 0), rows - per_row)
  div.u32 %r12, %r10, %r2;
  mul.lo.u32 %r13, %r12, %r2;
  sub.u32 %r14, %r10, %r13;
  max.u32 %r15, %r12, %r4;
  sub.u32 %r15, %r15, %r4;
  min.u32 %r15, %r15, %r5;
  add.u32 %r16, %r15, %r14;
  shl.b64 %rd10, %rd7, 2;
  add.s64 %rd12, %rd2, %rd10;
  st.global.u32 [%rd12], %r16;
  {
    .param .b32 a0;
    .param .b32 a1;
    .param .b32 rv;
    st.param.b32 [a0], %r3;
    st.param.b32 [a1], %r10;
    call.uni (rv), cc_unit, (a0, a1);
    ld.param.f32 %f1, [rv];
  }
  add.s64 %rd13, %rd3, %rd10;
  st.global.f32 [%rd13], %f1;
FILL_CSR_NEXT:
  add.u64 %rd7, %rd7, %rd9;
  bra.uni FILL_CSR_LOOP;
FILL_CSR_DONE:
  ret;
}

.visible .entry cc_saxpy(.param .u64 cc_y, .param .u64 cc_x, .param .f32 cc_a, .param .u64 cc_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<5>;
  ld.param.u64 %rd1, [cc_y];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [cc_x];
  cvta.to.global.u64 %rd2, %rd2;
  ld.param.f32 %f1, [cc_a];
  ld.param.u64 %rd3, [cc_n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, %nctaid.x;
  mul.wide.u32 %rd4, %r2, %r3;
  cvt.u64.u32 %rd5, %r4;
  add.u64 %rd4, %rd4, %rd5;
  mul.wide.u32 %rd6, %r5, %r3;
SAXPY_LOOP:
  setp.ge.u64 %p1, %rd4, %rd3;
  @%p1 bra SAXPY_DONE;
  shl.b64 %rd7, %rd4, 2;
  add.s64 %rd8, %rd2, %rd7;
  add.s64 %rd9, %rd1, %rd7;
  ld.global.f32 %f2, [%rd8];
  ld.global.f32 %f3, [%rd9];
  fma.rn.f32 %f4, %f1, %f2, %f3;
  st.global.f32 [%rd9], %f4;
  add.u64 %rd4, %rd4, %rd6;
  bra.uni SAXPY_LOOP;
SAXPY_DONE:
  ret;
}

.visible .entry cc_count_diff(.param .u64 cc_a, .param .u64 cc_b, .param .u64 cc_n, .param .u64 cc_count)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [cc_a];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.u64 %rd2, [cc_b];
  cvta.to.global.u64 %rd2, %rd2;
  ld.param.u64 %rd3, [cc_n];
  ld.param.u64 %rd10, [cc_count];
  cvta.to.global.u64 %rd10, %rd10;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, %nctaid.x;
  mul.wide.u32 %rd4, %r2, %r3;
  cvt.u64.u32 %rd5, %r4;
  add.u64 %rd4, %rd4, %rd5;
  mul.wide.u32 %rd6, %r5, %r3;
COUNT_LOOP:
  setp.ge.u64 %p1, %rd4, %rd3;
  @%p1 bra COUNT_DONE;
  shl.b64 %rd7, %rd4, 2;
  add.s64 %rd8, %rd1, %rd7;
  add.s64 %rd9, %rd2, %rd7;
  ld.global.u32 %r6, [%rd8];
  ld.global.u32 %r7, [%rd9];
  setp.ne.u32 %p2, %r6, %r7;
  @%p2 red.global.add.u32 [%rd10], 1;
  add.u64 %rd4, %rd4, %rd6;
  bra.uni COUNT_LOOP;
COUNT_DONE:
  ret;
}
)PTX";
} // namespace

std::string_view ptx_target_for(int nvjitlink_major) { return nvjitlink_major >= 13 ? "sm_75" : "sm_50"; }

std::string probe_ptx(int nvjitlink_major) {
  std::string text(ptx_text, sizeof(ptx_text)); // with the NUL
  const std::string_view placeholder = ".target sm_75";
  text.replace(text.find(placeholder), placeholder.size(), ".target " + std::string(ptx_target_for(nvjitlink_major)));
  return text;
}

std::string jit_arch_option(int cc_major, int cc_minor) {
  return "-arch=sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

} // namespace condacuda::check
