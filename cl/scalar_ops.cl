/* The scalar rule of every element-wise op, once for the kernels that evaluate
 * ops: cl/elementwise.cl (one op per launch) and cl/eval.cl (a fused expression).
 * Prepended to both after common.cl (src/opencl/cl_kernels.c).
 *
 * The rules are the host backend's (src/cpu/host_scalar.c), op by op:
 *   - integer arithmetic wraps, done in an unsigned type of at least 32 bits,
 *     so narrow types never overflow a promoted int (ushort * ushort);
 *   - Python floor division and remainder for signed integers (x // 0 = x % 0 = 0,
 *     MIN // -1 = MIN), C's for unsigned ones (x // 0 = x % 0 = 0);
 *   - integer powers by repeated squaring, modulo 2^width; a negative exponent
 *     gives the exact result truncated toward zero;
 *   - NumPy's npy_divmod for float floor division and remainder;
 *   - NaN-propagating maximum/minimum, the second operand on ties;
 *   - bool: add = or, multiply = and, maximum = or, minimum = and (NumPy);
 *   - float16 computes in float; the caller rounds each result to half (clb_rh).
 * test_elementwise's table test compares every op x dtype x edge value (NaN,
 * +-0, +-inf, INT_MIN, -1, 0, ...) with the host on every device, so the two
 * texts cannot drift apart unnoticed.
 *
 * Helper names are clb_<op>_<dtype number>, <op> the public enum's name in lower
 * case (CLB_FLOOR_DIV: clb_floor_div_10). CLB_BINARY(op, dt, a, b) and
 * CLB_UNARY(op, dt, x) call the helper of an op number through the names that
 * cl/gen_enums.py writes from include/clbroadcast.h (CLB_BINARY_FN_<n>), so no
 * kernel and no generated code holds a bare op number.
 *
 * A dtype's helpers are defined when CLB_USE_<dtype> is: eval.cl gets one per
 * compute dtype of its expression from the host; elementwise.cl's
 * CLB_COMPUTE_DTYPE selects its one set below. */

/* No fused multiply-add the host would not do: a*b+c is two roundings. */
#pragma OPENCL FP_CONTRACT OFF

#define CLB_BINARY(op, dt, a, b) CLB_CAT(CLB_CAT(CLB_BINARY_FN_, op), dt)(a, b)
#define CLB_UNARY(op, dt, x) CLB_CAT(CLB_CAT(CLB_UNARY_FN_, op), dt)(x)

#if defined(CLB_COMPUTE_DTYPE)
#if CLB_COMPUTE_DTYPE == 0
#define CLB_USE_0 1
#elif CLB_COMPUTE_DTYPE == 1
#define CLB_USE_1 1
#elif CLB_COMPUTE_DTYPE == 2
#define CLB_USE_2 1
#elif CLB_COMPUTE_DTYPE == 3
#define CLB_USE_3 1
#elif CLB_COMPUTE_DTYPE == 4
#define CLB_USE_4 1
#elif CLB_COMPUTE_DTYPE == 5
#define CLB_USE_5 1
#elif CLB_COMPUTE_DTYPE == 6
#define CLB_USE_6 1
#elif CLB_COMPUTE_DTYPE == 7
#define CLB_USE_7 1
#elif CLB_COMPUTE_DTYPE == 8
#define CLB_USE_8 1
#elif CLB_COMPUTE_DTYPE == 9
#define CLB_USE_9 1
#elif CLB_COMPUTE_DTYPE == 10
#define CLB_USE_10 1
#elif CLB_COMPUTE_DTYPE == 11
#define CLB_USE_11 1
#endif
#endif

/* ---- rounding to half ----------------------------------------------------------------- */

/* clb_rh (cl/common.cl) rounds a float to the nearest half; clb_rhd a double,
   without going through float (one rounding). */
#if CLB_HAVE_FP64
inline float clb_rhd(double x)
{
    ushort bits;
    vstore_half_rte(x, 0, (__private half *)&bits);
    return vload_half(0, (__private const half *)&bits);
}
#endif

/* ---- helpers per class ---------------------------------------------------------------- */

/* Comparisons (unordered NaN makes all but != false, as C) give a bool (uchar 0/1). */
#define CLB_CMP_FUNCS(dt, T)                                                                       \
    inline uchar clb_eq_##dt(T a, T b) { return a == b; }                                          \
    inline uchar clb_ne_##dt(T a, T b) { return a != b; }                                          \
    inline uchar clb_lt_##dt(T a, T b) { return a < b; }                                           \
    inline uchar clb_le_##dt(T a, T b) { return a <= b; }                                          \
    inline uchar clb_gt_##dt(T a, T b) { return a > b; }                                           \
    inline uchar clb_ge_##dt(T a, T b) { return a >= b; }

/* Integers: wrapping arithmetic in the unsigned type W (>= 32 bits). */
#define CLB_INT_FUNCS(dt, T, W)                                                                    \
    CLB_CMP_FUNCS(dt, T)                                                                           \
    inline T clb_add_##dt(T a, T b) { return (T)((W)a + (W)b); }                                   \
    inline T clb_sub_##dt(T a, T b) { return (T)((W)a - (W)b); }                                   \
    inline T clb_mul_##dt(T a, T b) { return (T)((W)a * (W)b); }                                   \
    inline T clb_maximum_##dt(T a, T b) { return a >= b ? a : b; }                                 \
    inline T clb_minimum_##dt(T a, T b) { return a <= b ? a : b; }                                 \
    inline T clb_bitwise_and_##dt(T a, T b) { return a & b; }                                      \
    inline T clb_bitwise_or_##dt(T a, T b) { return a | b; }                                       \
    inline T clb_bitwise_xor_##dt(T a, T b) { return a ^ b; }                                      \
    inline T clb_invert_##dt(T a) { return (T)~a; }                                                \
    inline T clb_bitwise_invert_##dt(T a) { return (T)~a; }                                        \
    inline T clb_round_##dt(T a) { return a; }                                                     \
    inline T clb_trunc_##dt(T a) { return a; }                                                     \
    inline T clb_square_##dt(T a) { return (T)((W)a * (W)a); }                                     \
    inline uchar clb_isnan_##dt(T a) { return 0; }                                                 \
    inline uchar clb_isinf_##dt(T a) { return 0; }                                                 \
    inline uchar clb_isfinite_##dt(T a) { return 1; }                                              \
    /* NumPy's npy_lshift: a count (as unsigned) of the width or more gives 0 */                   \
    inline T clb_left_shift_##dt(T a, T b)                                                         \
    {                                                                                              \
        return (W)b < (W)(8 * sizeof(T)) ? (T)((W)a << (W)b) : (T)0;                               \
    }                                                                                              \
    inline T clb_neg_##dt(T a) { return (T)((W)0 - (W)a); }                                        \
    inline T clb_floor_##dt(T a) { return a; }                                                     \
    inline T clb_ceil_##dt(T a) { return a; }                                                      \
    inline W clb_powwrap_##dt(W base, W e)                                                         \
    {                                                                                              \
        W r = 1;                                                                                   \
        while (e) {                                                                                \
            if (e & 1) r *= base;                                                                  \
            base *= base;                                                                          \
            e >>= 1;                                                                               \
        }                                                                                          \
        return r;                                                                                  \
    }

/* Signed: Python floor division and remainder; x // 0 = x % 0 = 0; MIN // -1 = MIN. */
#define CLB_SIGNED_FUNCS(dt, T, W)                                                                 \
    CLB_INT_FUNCS(dt, T, W)                                                                        \
    inline T clb_floor_div_##dt(T a, T b)                                                          \
    {                                                                                              \
        if (b == 0) return 0;                                                                      \
        if (b == -1) return (T)((W)0 - (W)a);                                                      \
        T q = (T)(a / b);                                                                          \
        /* signs differ: (a ^ b) < 0, not (a < 0) != (b < 0) (quirk sext-compare) */              \
        if ((T)(a % b) != 0 && (T)(a ^ b) < 0) q--;                                                \
        return q;                                                                                  \
    }                                                                                              \
    inline T clb_div_##dt(T a, T b) { return clb_floor_div_##dt(a, b); }                           \
    inline T clb_mod_##dt(T a, T b)                                                                \
    {                                                                                              \
        if (b == 0 || b == -1) return 0;                                                           \
        T r = (T)(a % b);                                                                          \
        if (r != 0 && (T)(r ^ b) < 0) r = (T)(r + b);                                              \
        return r;                                                                                  \
    }                                                                                              \
    inline T clb_pow_##dt(T a, T b)                                                                \
    {                                                                                              \
        if (((T)~b >> (8 * sizeof(T) - 1)) & 1) /* b >= 0 (quirk sext-compare) */                 \
            return (T)clb_powwrap_##dt((W)a, (W)b);                                                \
        if (a == 1) return 1;                                                                      \
        if (a == -1) return (b & 1) ? -1 : 1;                                                      \
        return 0;                                                                                  \
    }                                                                                              \
    inline T clb_abs_##dt(T a) { return a < 0 ? (T)((W)0 - (W)a) : a; }                            \
    inline T clb_sign_##dt(T a) { return (T)((a > 0) - (a < 0)); }                                 \
    /* npy_rshift: arithmetic; a count past the width gives the sign (-1 or 0), */                 \
    /* computed as a shift, not a select on a char (tests/quirks/char_relu_select.c) */           \
    inline T clb_right_shift_##dt(T a, T b)                                                        \
    {                                                                                              \
        return (W)b < (W)(8 * sizeof(T)) ? (T)(a >> b) : (T)(a >> (8 * sizeof(T) - 1));            \
    }                                                                                              \
    /* a > 0, not a < 0: llvmpipe crashes on a char selected by a < 0 */                      \
    /* (tests/quirks/char_relu_select.c) */                                                        \
    inline T clb_relu_##dt(T a) { return a > 0 ? a : (T)0; }

#define CLB_UNSIGNED_FUNCS(dt, T, W)                                                               \
    CLB_INT_FUNCS(dt, T, W)                                                                        \
    inline T clb_floor_div_##dt(T a, T b) { return b ? (T)(a / b) : (T)0; }                        \
    inline T clb_div_##dt(T a, T b) { return clb_floor_div_##dt(a, b); }                           \
    inline T clb_mod_##dt(T a, T b) { return b ? (T)(a % b) : (T)0; }                              \
    inline T clb_pow_##dt(T a, T b) { return (T)clb_powwrap_##dt((W)a, (W)b); }                    \
    inline T clb_abs_##dt(T a) { return a; }                                                       \
    inline T clb_sign_##dt(T a) { return (T)(a != 0); }                                            \
    inline T clb_right_shift_##dt(T a, T b)                                                        \
    {                                                                                              \
        return b < (T)(8 * sizeof(T)) ? (T)(a >> b) : (T)0;                                        \
    }                                                                                              \
    inline T clb_relu_##dt(T a) { return a; }

/* Floats (float16 computes in float; the caller rounds each result). */
#define CLB_REAL_FUNCS(dt, T)                                                                      \
    CLB_CMP_FUNCS(dt, T)                                                                           \
    inline T clb_add_##dt(T a, T b) { return a + b; }                                              \
    inline T clb_sub_##dt(T a, T b) { return a - b; }                                              \
    inline T clb_mul_##dt(T a, T b) { return a * b; }                                              \
    inline T clb_div_##dt(T a, T b) { return a / b; }                                              \
    /* NumPy's npy_divmod: floor quotient; the remainder takes the divisor's sign. */              \
    inline T clb_divmod_##dt(T a, T b, T *mod_out)                                                 \
    {                                                                                              \
        T mod = fmod(a, b);                                                                        \
        if (b == 0) { /* x % 0 = nan (fmod), x // 0 = x / 0 */                                     \
            *mod_out = mod;                                                                        \
            return a / b;                                                                          \
        }                                                                                          \
        T div = (a - mod) / b; /* nearly an integer */                                             \
        if (mod != 0) {                                                                            \
            if ((b < 0) != (mod < 0)) {                                                            \
                mod += b;                                                                          \
                div -= 1;                                                                          \
            }                                                                                      \
        } else {                                                                                   \
            mod = copysign((T)0, b);                                                               \
        }                                                                                          \
        T fl;                                                                                      \
        if (div != 0) {                                                                            \
            fl = floor(div);                                                                       \
            if (div - fl > (T)0.5) fl += 1;                                                        \
        } else {                                                                                   \
            fl = copysign((T)0, a / b);                                                            \
        }                                                                                          \
        *mod_out = mod;                                                                            \
        return fl;                                                                                 \
    }                                                                                              \
    inline T clb_floor_div_##dt(T a, T b)                                                          \
    {                                                                                              \
        T m;                                                                                       \
        return clb_divmod_##dt(a, b, &m);                                                          \
    }                                                                                              \
    inline T clb_mod_##dt(T a, T b)                                                                \
    {                                                                                              \
        T m;                                                                                       \
        clb_divmod_##dt(a, b, &m);                                                                 \
        return m;                                                                                  \
    }                                                                                              \
    inline T clb_pow_##dt(T a, T b) { return pow(a, b); }                                          \
    inline T clb_maximum_##dt(T a, T b) { return isnan(a) || a > b ? a : b; }                      \
    inline T clb_minimum_##dt(T a, T b) { return isnan(a) || a < b ? a : b; }                      \
    inline T clb_neg_##dt(T a) { return -a; }                                                      \
    inline T clb_abs_##dt(T a) { return fabs(a); }                                                 \
    inline T clb_sqrt_##dt(T a) { return sqrt(a); }                                                \
    /* 1 / sqrt, as the host: rsqrt() may be less accurate */                                      \
    inline T clb_rsqrt_##dt(T a) { return (T)1 / sqrt(a); }                                        \
    inline T clb_relu_##dt(T a) { return a > 0 || isnan(a) ? a : (T)0; }                           \
    inline T clb_floor_##dt(T a) { return floor(a); }                                              \
    inline T clb_ceil_##dt(T a) { return ceil(a); }                                                \
    /* the array API standard's set, as the host's <tgmath.h> calls */                             \
    inline T clb_asin_##dt(T a) { return asin(a); }                                                \
    inline T clb_acos_##dt(T a) { return acos(a); }                                                \
    inline T clb_atan_##dt(T a) { return atan(a); }                                                \
    inline T clb_sinh_##dt(T a) { return sinh(a); }                                                \
    inline T clb_cosh_##dt(T a) { return cosh(a); }                                                \
    inline T clb_asinh_##dt(T a) { return asinh(a); }                                              \
    inline T clb_acosh_##dt(T a) { return acosh(a); }                                              \
    inline T clb_atanh_##dt(T a) { return atanh(a); }                                              \
    inline T clb_round_##dt(T a) { return rint(a); } /* half to even */                            \
    inline T clb_trunc_##dt(T a) { return trunc(a); }                                              \
    /* NumPy: +-0 give +0, NaN stays NaN */                                                        \
    inline T clb_sign_##dt(T a) { return a > 0 ? (T)1 : a < 0 ? (T)-1 : a == 0 ? (T)0 : a; }       \
    inline T clb_square_##dt(T a) { return a * a; }                                                \
    inline uchar clb_isnan_##dt(T a) { return isnan(a) ? 1 : 0; }                                  \
    inline uchar clb_isinf_##dt(T a) { return isinf(a) ? 1 : 0; }                                  \
    inline uchar clb_isfinite_##dt(T a) { return isfinite(a) ? 1 : 0; }                            \
    inline T clb_atan2_##dt(T a, T b) { return atan2(a, b); }                                      \
    inline T clb_hypot_##dt(T a, T b) { return hypot(a, b); }                                      \
    inline T clb_copysign_##dt(T a, T b) { return copysign(a, b); }                                \
    /* NumPy's npy_logaddexp: equal arguments (infinities of one sign) give x + log 2 */           \
    inline T clb_logaddexp_##dt(T a, T b)                                                          \
    {                                                                                              \
        if (a == b) return a + (T)0.693147180559945309417232121458176568;                          \
        T d = a - b;                                                                               \
        if (d > 0) return a + log1p(exp(-d));                                                      \
        if (d <= 0) return b + log1p(exp(d));                                                      \
        return d;                                                                                  \
    }

/* The transcendental functions by the device's built-ins (GPUs, double, and CPU
   devices without CLB_OWN_MATH). */
#define CLB_LIBM_FUNCS(dt, T)                                                                      \
    inline T clb_exp_##dt(T a) { return exp(a); }                                                  \
    inline T clb_log_##dt(T a) { return log(a); }                                                  \
    inline T clb_sin_##dt(T a) { return sin(a); }                                                  \
    inline T clb_cos_##dt(T a) { return cos(a); }                                                  \
    /* |a| > 20 rounds to +-1 in float and double; PoCL 3.1 gives +-0.99999994 (quirk tanh-inf) */ \
    inline T clb_tanh_##dt(T a) { return fabs(a) > (T)20 ? copysign((T)1, a) : tanh(a); }          \
    /* exp of a non-positive number only: no overflow */                                           \
    inline T clb_sigmoid_##dt(T a)                                                                 \
    {                                                                                              \
        return a >= 0 ? (T)1 / ((T)1 + exp(-a)) : exp(a) / ((T)1 + exp(a));                       \
    }                                                                                              \
    inline T clb_tan_##dt(T a) { return tan(a); }                                                  \
    inline T clb_expm1_##dt(T a) { return expm1(a); }                                              \
    inline T clb_log1p_##dt(T a) { return log1p(a); }                                              \
    inline T clb_log2_##dt(T a) { return log2(a); }                                                \
    inline T clb_log10_##dt(T a) { return log10(a); }                                              \
    inline T clb_erf_##dt(T a) { return erf(a); }

/* ---- float32 transcendental functions as straight-line code (CLB_OWN_MATH) ------------
 *
 * On CPU devices (the host sets CLB_OWN_MATH from the device type) a work
 * item's unrolled elements, or PoCL's work-item loop, become SIMD code only if
 * each element's function is straight-line arithmetic: PoCL 3.1's scalar log,
 * sin, tanh, ... are branchy library calls, which left clb_unary(CLB_LOG) 4-8x
 * slower than NumPy's single thread. These are float additions, multiplications,
 * divisions and integer operations, the special cases (+-0, +-inf, NaN, log of a
 * negative number, tanh(+-inf) = +-1) chosen by selects. Cephes' minimax
 * polynomials (S. Moshier), the log and sincos ones shared with the random
 * normals (cl/random.h); accuracy against float64 libm in docs/semantics.md.
 * sin, cos and tan call the built-in past |x| = 2^20 (256 without float64),
 * where the reduction by pi/2 would lose bits; that branch keeps the element
 * scalar, so the chunks of cl/eval.cl and cl/elementwise.cl use the branch-free
 * clb_mf_*_run below (CLB_MF_RUNS). Every ?: here selects between values
 * already computed (clang emits a branch for an arm that is an expression, and
 * a branch per element splits a chunk). */
#if !defined(CLB_OWN_MATH)
#define CLB_OWN_MATH 0
#endif
#if CLB_OWN_MATH && (defined(CLB_USE_9) || defined(CLB_USE_10))
#define CLB_MF __attribute__((always_inline)) inline
#define CLB_MF_INF as_float(0x7f800000u)
#define CLB_MF_NAN as_float(0x7fc00000u)

/* Round to the nearest integer, ties to even, |x| < 2^22 (no library call). */
CLB_MF float clb_mf_rint(float x) { return (x + 0x1.8p23f) - 0x1.8p23f; }

/* 2^k as a float for an integer k in [-126, 127]. */
CLB_MF float clb_mf_pow2(int k) { return as_float((uint)(k + 127) << 23); }

/* a = (1 + *x) 2^*e with *x in [sqrt(1/2) - 1, sqrt(2) - 1), a > 0 finite (subnormal
   too); other a give garbage, replaced by the callers' selects. */
CLB_MF void clb_mf_logsplit(float a, float *x, float *e)
{
    const int sub = a < 0x1p-126f;
    const uint b = as_uint(sub ? a * 0x1p23f : a);
    const float m = as_float((b & 0x007fffffu) | 0x3f000000u); /* [0.5, 1) */
    const int small = m < 0.70710678118654752440f;
    *e = (float)((int)(b >> 23) - 126 - small - (sub ? 23 : 0));
    *x = small ? m + m - 1.0f : m - 1.0f;
}

/* The special cases of every log: log(+inf) = +inf, log(+-0) = -inf, log(x < 0)
   and log(NaN) = NaN. */
CLB_MF float clb_mf_logspecial(float a, float r)
{
    r = a == CLB_MF_INF ? a : r;
    r = a == 0.0f ? -CLB_MF_INF : r;
    return a < 0.0f || a != a ? CLB_MF_NAN : r;
}

CLB_MF float clb_mf_log(float a)
{
    float x, e;
    clb_mf_logsplit(a, &x, &e);
    CLB_RNG_LN_STMTS(float, x, e);
    return clb_mf_logspecial(a, r_);
}

/* Cephes' log2f: log2(1 + x) = (x + y) + (x + y) (log2 e - 1), y = P - z / 2. */
CLB_MF float clb_mf_log2(float a)
{
    float x, e;
    clb_mf_logsplit(a, &x, &e);
    CLB_RNG_LOGP_STMTS(float, x);
    y_ = y_ + -0.5f * z_;
    float r = y_ * 0.44269504088896340736f;
    r = r + x * 0.44269504088896340736f;
    r = r + y_;
    r = r + x;
    return clb_mf_logspecial(a, r + e);
}

/* Cephes' log10f: log10 e and log10 2 in two parts. */
CLB_MF float clb_mf_log10(float a)
{
    float x, e;
    clb_mf_logsplit(a, &x, &e);
    CLB_RNG_LOGP_STMTS(float, x);
    y_ = y_ + -0.5f * z_;
    float r = (x + y_) * 7.00731903251827651129e-4f;
    r = r + y_ * 4.3359375e-1f;
    r = r + x * 4.3359375e-1f;
    r = r + e * 2.48745663981195213739e-4f;
    r = r + e * 3.0078125e-1f;
    return clb_mf_logspecial(a, r);
}

/* log1p(a) = log(u) a / (u - 1), u = 1 + a rounded (exact where u = 1: a). */
CLB_MF float clb_mf_log1p(float a)
{
    const float u = 1.0f + a;
    float r = clb_mf_log(u) * (a / (u - 1.0f));
    r = u == 1.0f ? a : r;
    return a == CLB_MF_INF ? a : r;
}

/* Cephes' expf: a = n ln 2 + x, |x| <= ln 2 / 2, 2^n in two factors (subnormal
   results rounded once, 2^128 reachable). */
CLB_MF float clb_mf_exp(float a)
{
    const float c = a > 89.0f ? 89.0f : a < -104.0f ? -104.0f : a;
    const float n = clb_mf_rint(c * 1.44269504088896341f);
    float x = c - n * 0.693359375f;
    x = x - n * -2.12194440e-4f;
    const float z = x * x;
    float p = 1.9875691500e-4f * x + 1.3981999507e-3f;
    p = p * x + 8.3334519073e-3f;
    p = p * x + 4.1665795894e-2f;
    p = p * x + 1.6666665459e-1f;
    p = p * x + 5.0000001201e-1f;
    p = p * z + x + 1.0f;
    const int k = (int)n, k1 = k >> 1;
    p = p * clb_mf_pow2(k1) * clb_mf_pow2(k - k1);
    return a != a ? a : p;
}

/* expm1: a = k ln 2 + r, expm1(r) by its Taylor series to r^8 (|r| <= ln 2 / 2:
   truncation below 1e-9 relative), then 2^k expm1(r) + (2^k - 1), exact in its
   parts for |k| <= 24; past k = 60, (expm1(r) + 1) 2^k in two factors. */
CLB_MF float clb_mf_expm1(float a)
{
    const float c = a > 89.0f ? 89.0f : a < -30.0f ? -30.0f : a;
    const float kf = clb_mf_rint(c * 1.44269504088896341f);
    float r = c - kf * 0.693359375f;
    r = r - kf * -2.12194440e-4f;
    float p = 2.4801587301587302e-5f * r + 1.9841269841269841e-4f;
    p = p * r + 1.3888888888888889e-3f;
    p = p * r + 8.3333333333333333e-3f;
    p = p * r + 4.1666666666666667e-2f;
    p = p * r + 1.6666666666666667e-1f;
    p = p * r + 0.5f;
    const float em = r + r * r * p;
    const int k = (int)kf, k1 = k >> 1;
    const float big = (em + 1.0f) * clb_mf_pow2(k1) * clb_mf_pow2(k - k1);
    const float s = clb_mf_pow2(k > 60 ? 0 : k);
    const float small = em * s + (s - 1.0f);
    float y = k > 60 ? big : small;
    y = a == 0.0f ? a : y; /* -0 */
    return a != a ? a : y;
}

/* tanh |a| = t / (t + 2), t = expm1(2 |a|); |a| > 20 gives 1 (quirk tanh-inf),
   the sign copied (tanh(-0) = -0). */
CLB_MF float clb_mf_tanh(float a)
{
    const float m = as_float(as_uint(a) & 0x7fffffffu);
    const float t = clb_mf_expm1(2.0f * (m > 20.0f ? 20.0f : m));
    const float r = t / (t + 2.0f);
    return as_float(as_uint(r) | (as_uint(a) & 0x80000000u));
}

/* The host's formula, exp of a non-positive number only. */
CLB_MF float clb_mf_sigmoid(float a)
{
    const float e = clb_mf_exp(-as_float(as_uint(a) & 0x7fffffffu));
    const float n = a >= 0.0f ? 1.0f : e;
    return n / (1.0f + e);
}

/* sin and cos of a, |a| <= CLB_MF_TRIG_MAX: j = the nearest multiple of pi/2,
   quadrant j & 3, x = a - j pi/2 by fdlibm's two-part pi/2 in double (the
   first part's 33 bits make j pi/2 exact for |j| < 2^20), rounded once to
   float; without float64, Cephes' three float parts (exact products for
   |j| < 2^11) over a shorter range. */
#if CLB_HAVE_FP64
#define CLB_MF_TRIG_MAX 1048576.0f
#else
#define CLB_MF_TRIG_MAX 256.0f
#endif
CLB_MF void clb_mf_sincos(float a, float *s, float *c)
{
#if CLB_HAVE_FP64
    const double jd = (double)clb_mf_rint(a * 0.63661977236758134308f);
    double xd = (double)a - jd * 1.57079632673412561417e+00;
    xd = xd - jd * 6.07710050650619224932e-11;
    const float x = (float)xd, j = (float)jd;
#else
    const float j = clb_mf_rint(a * 0.63661977236758134308f);
    float x = a - j * 1.5703125f;
    x = x - j * 4.837512969970703125e-4f;
    x = x - j * 7.54978995489188216e-8f;
#endif
    CLB_RNG_SINCOS_POLY(float, x, sx, cx);
    /* the quadrant by bits (a chain of == selects may become a branchy switch):
       odd swaps sin and cos, bit 1 negates sin, bit 1 of q + 1 negates cos */
    const uint q = (uint)(int)j, odd = q & 1u;
    const float s0 = odd ? cx : sx, c0 = odd ? sx : cx;
    *s = as_float(as_uint(s0) ^ ((q & 2u) << 30));
    *c = as_float(as_uint(c0) ^ (((q + 1u) & 2u) << 30));
}

CLB_MF float clb_mf_sin(float a)
{
    if (!(as_float(as_uint(a) & 0x7fffffffu) <= CLB_MF_TRIG_MAX)) return sin(a);
    float s, c;
    clb_mf_sincos(a, &s, &c);
    return s;
}

CLB_MF float clb_mf_cos(float a)
{
    if (!(as_float(as_uint(a) & 0x7fffffffu) <= CLB_MF_TRIG_MAX)) return cos(a);
    float s, c;
    clb_mf_sincos(a, &s, &c);
    return c;
}

CLB_MF float clb_mf_tan(float a)
{
    if (!(as_float(as_uint(a) & 0x7fffffffu) <= CLB_MF_TRIG_MAX)) return tan(a);
    float s, c;
    clb_mf_sincos(a, &s, &c);
    return s / c;
}

/* sin, cos and tan without the branch, for a run of elements computed side by
   side (the chunks of cl/eval.cl and cl/elementwise.cl): |a| <= CLB_MF_TRIG_MAX
   as above, NaN for +-inf and NaN, and for a larger finite a a placeholder and
   *big set, after which the caller computes the run again with the functions
   above. A branch per element
   splits the run into blocks that the compiler does not vectorise together: a
   fused sin(x) + tanh(x) ran scalar, slower than its two functions apart. */
CLB_MF float clb_mf_trig_mark(float a, float r, int *big)
{
    const float m = as_float(as_uint(a) & 0x7fffffffu);
    *big |= (m > CLB_MF_TRIG_MAX) & (m != CLB_MF_INF);
    const float nan = a - a;
    return m <= CLB_MF_TRIG_MAX ? r : nan;
}

CLB_MF float clb_mf_sin_run(float a, int *big)
{
    float s, c;
    clb_mf_sincos(a, &s, &c);
    return clb_mf_trig_mark(a, s, big);
}

CLB_MF float clb_mf_cos_run(float a, int *big)
{
    float s, c;
    clb_mf_sincos(a, &s, &c);
    return clb_mf_trig_mark(a, c, big);
}

CLB_MF float clb_mf_tan_run(float a, int *big)
{
    float s, c;
    clb_mf_sincos(a, &s, &c);
    return clb_mf_trig_mark(a, s / c, big);
}

/* erf, branch-free: below |x| = 1, x + x Q(x^2) (Q of degree 7); from 1,
   1 - exp(R(|x|)) with R (degree 9) fitting log(erfc) on [1, 4] (from 4 on
   erf is 1 in float). Least-squares Chebyshev fits, the coefficients rounded
   to float; evaluated in float without fused operations they are within
   1.33 ulp of erf (double) over every 7th float32 in (0, 4), with the own exp
   (the fit: tools/erf_fit.py). PoCL's built-in is a library call per element:
   clb_unary(CLB_ERF) of 2^24 float32 took 290 ms, 4.8x torch's. */
CLB_MF float clb_mf_erf(float a)
{
    const float t = as_float(as_uint(a) & 0x7fffffffu), s = t * t;
    float q = -9.809256881e-06f * s + 1.131311437e-04f;
    q = q * s - 8.490195032e-04f;
    q = q * s + 5.221422762e-03f;
    q = q * s - 2.686555870e-02f;
    q = q * s + 1.128378436e-01f;
    q = q * s - 3.761263788e-01f;
    q = q * s + 1.283791661e-01f;
    const float small = t + t * q;
    const float u = t < 4.0f ? t : 4.0f; /* NaN: 4, replaced below */
    float r = -7.110158862e-08f * u + 3.226192348e-06f;
    r = r * u - 6.147777458e-05f;
    r = r * u + 6.819426198e-04f;
    r = r * u - 5.053890403e-03f;
    r = r * u + 2.708065510e-02f;
    r = r * u - 1.110370606e-01f;
    r = r * u - 6.309599280e-01f;
    r = r * u - 1.130676866e+00f;
    r = r * u + 4.179598182e-04f;
    const float large = 1.0f - clb_mf_exp(r);
    const float m = t < 1.0f ? small : large;
    const float v = as_float(as_uint(m) | (as_uint(a) & 0x80000000u));
    return a != a ? a : v;
}

/* Always inlined: PoCL builds with -Dinline= and its inliner kept clb_tanh_10 a call in
   each of a chunk's 16 unrolled elements (no vector code at all). */
#define CLB_OWN_FUNCS(dt)                                                                          \
    CLB_MF float clb_exp_##dt(float a) { return clb_mf_exp(a); }                                   \
    CLB_MF float clb_log_##dt(float a) { return clb_mf_log(a); }                                   \
    CLB_MF float clb_sin_##dt(float a) { return clb_mf_sin(a); }                                   \
    CLB_MF float clb_cos_##dt(float a) { return clb_mf_cos(a); }                                   \
    CLB_MF float clb_tanh_##dt(float a) { return clb_mf_tanh(a); }                                 \
    CLB_MF float clb_sigmoid_##dt(float a) { return clb_mf_sigmoid(a); }                           \
    CLB_MF float clb_tan_##dt(float a) { return clb_mf_tan(a); }                                   \
    CLB_MF float clb_expm1_##dt(float a) { return clb_mf_expm1(a); }                               \
    CLB_MF float clb_log1p_##dt(float a) { return clb_mf_log1p(a); }                               \
    CLB_MF float clb_log2_##dt(float a) { return clb_mf_log2(a); }                                 \
    CLB_MF float clb_log10_##dt(float a) { return clb_mf_log10(a); }                               \
    CLB_MF float clb_erf_##dt(float a) { return clb_mf_erf(a); }
#endif

/* 1 where the clb_mf_*_run forms exist (float16 or float32 helpers with
   CLB_OWN_MATH): a kernel that computes a chunk of elements side by side takes
   them for sin, cos and tan, and computes a chunk that set the flag again with
   the exact helpers (cl/eval.cl, cl/elementwise.cl). */
#if CLB_OWN_MATH && (defined(CLB_USE_9) || defined(CLB_USE_10))
#define CLB_MF_RUNS 1
#else
#define CLB_MF_RUNS 0
#endif

/* ---- the sets, per compute dtype -------------------------------------------------------- */

/* Bool: the compute dtype of comparisons' operands of bool, of logical ops
   (values 0/1) and of logical_not. */
#if defined(CLB_USE_0)
CLB_CMP_FUNCS(0, uchar)
inline uchar clb_add_0(uchar a, uchar b) { return a | b; }
inline uchar clb_mul_0(uchar a, uchar b) { return a & b; }
inline uchar clb_maximum_0(uchar a, uchar b) { return a | b; }
inline uchar clb_minimum_0(uchar a, uchar b) { return a & b; }
inline uchar clb_bitwise_and_0(uchar a, uchar b) { return a & b; }
inline uchar clb_bitwise_or_0(uchar a, uchar b) { return a | b; }
inline uchar clb_bitwise_xor_0(uchar a, uchar b) { return a ^ b; }
inline uchar clb_logical_and_0(uchar a, uchar b) { return a & b; }
inline uchar clb_logical_or_0(uchar a, uchar b) { return a | b; }
inline uchar clb_logical_xor_0(uchar a, uchar b) { return a ^ b; }
inline uchar clb_logical_not_0(uchar a) { return a == 0; }
inline uchar clb_abs_0(uchar a) { return a; }
inline uchar clb_floor_0(uchar a) { return a; }
inline uchar clb_ceil_0(uchar a) { return a; }
inline uchar clb_round_0(uchar a) { return a; }
inline uchar clb_trunc_0(uchar a) { return a; }
inline uchar clb_bitwise_invert_0(uchar a) { return a == 0; }
inline uchar clb_isnan_0(uchar a) { return 0; }
inline uchar clb_isinf_0(uchar a) { return 0; }
inline uchar clb_isfinite_0(uchar a) { return 1; }
#endif
#if defined(CLB_USE_1)
CLB_SIGNED_FUNCS(1, char, uint)
#endif
#if defined(CLB_USE_2)
CLB_UNSIGNED_FUNCS(2, uchar, uint)
#endif
#if defined(CLB_USE_3)
CLB_SIGNED_FUNCS(3, short, uint)
#endif
#if defined(CLB_USE_4)
CLB_UNSIGNED_FUNCS(4, ushort, uint)
#endif
#if defined(CLB_USE_5)
CLB_SIGNED_FUNCS(5, int, uint)
#endif
#if defined(CLB_USE_6)
CLB_UNSIGNED_FUNCS(6, uint, uint)
#endif
#if defined(CLB_USE_7)
CLB_SIGNED_FUNCS(7, long, ulong)
#endif
#if defined(CLB_USE_8)
CLB_UNSIGNED_FUNCS(8, ulong, ulong)
#endif
#if defined(CLB_USE_9)
CLB_REAL_FUNCS(9, float)
#if CLB_OWN_MATH
CLB_OWN_FUNCS(9)
#else
CLB_LIBM_FUNCS(9, float)
#endif
#endif
#if defined(CLB_USE_10)
CLB_REAL_FUNCS(10, float)
#if CLB_OWN_MATH
CLB_OWN_FUNCS(10)
#else
CLB_LIBM_FUNCS(10, float)
#endif
#endif
#if defined(CLB_USE_11)
#if !CLB_HAVE_FP64
#error "float64 needs a device with cl_khr_fp64"
#endif
CLB_REAL_FUNCS(11, double)
CLB_LIBM_FUNCS(11, double)
#endif
