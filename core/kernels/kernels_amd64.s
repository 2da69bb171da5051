#include "textflag.h"

// AVX2 kernels; their Go twins in generic.go give the same results (see
// doc.go for the one exception: the sign of a zero max or min). Every kernel ends with
// VZEROUPPER: Go code after it uses SSE instructions, which would pay for
// dirty upper halves of the YMM registers.

// func sumLeavesAVX2(p *float64, lens *int, k int, sums *float64)
//
// sums[j] = numpy's pairwise leaf of the j-th of k consecutive rows of
// lens[j] elements (8 <= lens[j] <= 128) from p: Y0 holds the partial sums
// r0..r3 and Y1 r4..r7 of element i%8; they are combined
// ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)) and the last lens[j]%8 elements
// added one by one. One call reads its leaves as one stream: the hardware
// prefetchers keep up with it on rows from memory, where leaves summed two
// at a time (two streams) or software prefetching fell behind numpy.
TEXT ·sumLeavesAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ lens+8(FP), BX
	MOVQ k+16(FP), R8
	MOVQ sums+24(FP), DI
	XORQ R9, R9

leaf:
	CMPQ    R9, R8
	JGE     leavesdone
	MOVQ    0(BX)(R9*8), CX
	VMOVUPD 0(SI), Y0
	VMOVUPD 32(SI), Y1
	MOVQ    $8, AX
	LEAQ    -8(CX), DX
	CMPQ    AX, DX
	JGT     sumcombine

sumloop:
	VADDPD 0(SI)(AX*8), Y0, Y0
	VADDPD 32(SI)(AX*8), Y1, Y1
	ADDQ   $8, AX
	CMPQ   AX, DX
	JLE    sumloop

sumcombine:
	VHADDPD      Y1, Y0, Y0  // r0+r1, r4+r5, r2+r3, r6+r7
	VEXTRACTF128 $1, Y0, X1  // r2+r3, r6+r7
	VADDPD       X1, X0, X0  // (r0+r1)+(r2+r3), (r4+r5)+(r6+r7)
	VHADDPD      X0, X0, X0

sumtail:
	CMPQ   AX, CX
	JGE    leafdone
	VADDSD 0(SI)(AX*8), X0, X0
	INCQ   AX
	JMP    sumtail

leafdone:
	MOVSD X0, 0(DI)(R9*8)
	LEAQ  0(SI)(CX*8), SI
	INCQ  R9
	JMP   leaf

leavesdone:
	VZEROUPPER
	RET

// MINMAX folds the 16 elements at B+AX*8 into Y0..Y3 with OP (VMAXPD or
// VMINPD) and ORs their NaN mask into Y8. VMAXPD and VMINPD drop a NaN in
// one operand, hence the mask: an unordered compare of two vectors is true
// where either holds a NaN.
#define MINMAX(OP, B) \
	VMOVUPD 0(B)(AX*8), Y4   \
	VMOVUPD 32(B)(AX*8), Y5  \
	VMOVUPD 64(B)(AX*8), Y6  \
	VMOVUPD 96(B)(AX*8), Y7  \
	OP      Y4, Y0, Y0       \
	OP      Y5, Y1, Y1       \
	OP      Y6, Y2, Y2       \
	OP      Y7, Y3, Y3       \
	VCMPPD  $3, Y5, Y4, Y9   \
	VCMPPD  $3, Y7, Y6, Y10  \
	VORPD   Y9, Y8, Y8       \
	VORPD   Y10, Y8, Y8

// MINMAXBODY is the whole of maxAVX2 / minAVX2 between loading the
// arguments (SI = p, CX = n) and storing the results (X0 = m, AX = nan).
// It reads p as four streams of n/4 elements (SI, R9, R10, R11), 16 of each
// a step: a core keeps more reads in flight from four streams than from
// one, which is what a row from L3 or memory is limited by. The first 16
// elements seed the accumulators and are read again by the first step (a
// maximum does not change when an element counts twice); the NaN mask is
// tested once a step, so AX is a stream-0 index at or before the first NaN.
#define MINMAXBODY(OP, SOP) \
	SHRQ    $2, CX             \
	LEAQ    0(SI)(CX*8), R9    \
	LEAQ    0(R9)(CX*8), R10   \
	LEAQ    0(R10)(CX*8), R11  \
	VMOVUPD 0(SI), Y0          \
	VMOVUPD 32(SI), Y1         \
	VMOVUPD 64(SI), Y2         \
	VMOVUPD 96(SI), Y3         \
	VXORPD  Y8, Y8, Y8         \
	XORQ    AX, AX             \
loop:                          \
	MINMAX(OP, SI)             \
	MINMAX(OP, R9)             \
	MINMAX(OP, R10)            \
	MINMAX(OP, R11)            \
	VPTEST  Y8, Y8             \
	JNZ     done               \
	ADDQ    $16, AX            \
	CMPQ    AX, CX             \
	JLT     loop               \
	OP      Y1, Y0, Y0         \
	OP      Y3, Y2, Y2         \
	OP      Y2, Y0, Y0         \
	VEXTRACTF128 $1, Y0, X1    \
	OP      X1, X0, X0         \
	VPERMILPD $1, X0, X1       \
	SOP     X1, X0, X0         \
	MOVQ    $-1, AX            \
done:                          \
	VZEROUPPER

// func maxAVX2(p *float64, n int) (m float64, nan int)
TEXT ·maxAVX2(SB), NOSPLIT, $0-32
	MOVQ  p+0(FP), SI
	MOVQ  n+8(FP), CX
	MINMAXBODY(VMAXPD, VMAXSD)
	MOVSD X0, m+16(FP)
	MOVQ  AX, nan+24(FP)
	RET

// func minAVX2(p *float64, n int) (m float64, nan int)
TEXT ·minAVX2(SB), NOSPLIT, $0-32
	MOVQ  p+0(FP), SI
	MOVQ  n+8(FP), CX
	MINMAXBODY(VMINPD, VMINSD)
	MOVSD X0, m+16(FP)
	MOVQ  AX, nan+24(FP)
	RET

// func f64ToF32AVX2(dst *float32, src *float64, n int)
//
// VCVTPD2PS rounds as the MXCSR says: to nearest even, Go's setting; it
// is the instruction Go's float32(x) compiles to, NaN payloads included.
TEXT ·f64ToF32AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

cvtloop:
	VCVTPD2PSY 0(SI)(AX*8), X0
	VCVTPD2PSY 32(SI)(AX*8), X1
	VCVTPD2PSY 64(SI)(AX*8), X2
	VCVTPD2PSY 96(SI)(AX*8), X3
	VINSERTF128 $1, X1, Y0, Y0
	VINSERTF128 $1, X3, Y2, Y2
	VMOVUPS    Y0, 0(DI)(AX*4)
	VMOVUPS    Y2, 32(DI)(AX*4)
	ADDQ       $16, AX
	CMPQ       AX, CX
	JLT        cvtloop
	VZEROUPPER
	RET

// BF16 rounds the 8 floats in U to bfloat16 codes in the low halves of the
// dwords of R (T, K and M are scratch): R = (U + 0x7fff + (U>>16 & 1)) >> 16,
// or (U>>16 & 0x8000) | 0x7fc0 where U&0x7fffffff > 0x7f800000 (NaN). The
// constants live in Y10..Y15.
#define BF16(U, T, K, R, M) \
	VPSRLD    $16, U, T     \
	VPAND     Y14, T, K     \
	VPADDD    Y15, U, R     \
	VPADDD    K, R, R       \
	VPSRLD    $16, R, R     \
	VPAND     Y13, U, M     \
	VPCMPGTD  Y12, M, M     \
	VPAND     Y11, T, T     \
	VPOR      Y10, T, T     \
	VPBLENDVB M, T, R, R

#define BCAST(c, Y) \
	MOVL         c, BX   \
	VMOVD        BX, X9  \
	VPBROADCASTD X9, Y

// func f32ToBF16AVX2(dst *uint16, src *float32, n int)
TEXT ·f32ToBF16AVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	BCAST($0x7fff, Y15)
	BCAST($1, Y14)
	BCAST($0x7fffffff, Y13)
	BCAST($0x7f800000, Y12)
	BCAST($0x8000, Y11)
	BCAST($0x7fc0, Y10)
	XORQ AX, AX

bfloop:
	VMOVDQU   0(SI)(AX*4), Y0
	VMOVDQU   32(SI)(AX*4), Y5
	BF16(Y0, Y1, Y2, Y3, Y4)
	BF16(Y5, Y6, Y7, Y8, Y9)
	VPACKUSDW Y8, Y3, Y3        // per 128-bit lane: 4 of Y3, 4 of Y8
	VPERMQ    $0xd8, Y3, Y3     // lanes back in order
	VMOVDQU   Y3, 0(DI)(AX*2)
	ADDQ      $16, AX
	CMPQ      AX, CX
	JLT       bfloop
	VZEROUPPER
	RET

// I64F64 converts the 4 int64 in X to float64 in X (L is scratch) with
// two exact halves and one rounding: lo = the low 32 bits, read as the
// double 2^52+lo (bits 0x43300000_lo) minus 2^52; hi = the signed high
// 32 bits, read as 2^84 + (hi+2^31)*2^32 (bits 0x45300000_(hi^0x80000000))
// minus 2^84+2^63, which is the same bit pattern 0x45300000_80000000.
// hi*2^32 + lo rounds to nearest even, as CVTSI2SD.
#define I64F64(X, L) \
	VPBLENDD $0xaa, Y15, X, L \
	VPSRLQ   $32, X, X        \
	VPXOR    Y14, X, X        \
	VSUBPD   Y14, X, X        \
	VSUBPD   Y15, L, L        \
	VADDPD   L, X, X

// func i64ToF64AVX2(dst *float64, src *int64, n int)
TEXT ·i64ToF64AVX2(SB), NOSPLIT, $0-24
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         $0x4330000000000000, BX
	VMOVQ        BX, X15
	VPBROADCASTQ X15, Y15
	MOVQ         $0x4530000080000000, BX
	VMOVQ        BX, X14
	VPBROADCASTQ X14, Y14
	XORQ         AX, AX

i64loop:
	VMOVDQU 0(SI)(AX*8), Y0
	VMOVDQU 32(SI)(AX*8), Y1
	VMOVDQU 64(SI)(AX*8), Y2
	VMOVDQU 96(SI)(AX*8), Y3
	I64F64(Y0, Y4)
	I64F64(Y1, Y5)
	I64F64(Y2, Y6)
	I64F64(Y3, Y7)
	VMOVUPD Y0, 0(DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	VMOVUPD Y2, 64(DI)(AX*8)
	VMOVUPD Y3, 96(DI)(AX*8)
	ADDQ    $16, AX
	CMPQ    AX, CX
	JLT     i64loop
	VZEROUPPER
	RET
