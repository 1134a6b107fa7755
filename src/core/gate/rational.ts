/**
 * Exact non-negative-denominator rationals on bigint. The gate compares
 * fractions of whole cases against decimal policy values (0.925, 0.075,
 * 2 points); in binary floating point 0.925 × 40 is 36.99999..., so every
 * threshold is decided here, on integers, and only printed as decimals.
 */
export interface Rational {
  readonly n: bigint;
  readonly d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function rat(n: bigint | number, d: bigint | number = 1n): Rational {
  let nn = BigInt(n);
  let dd = BigInt(d);
  if (dd === 0n) throw new RangeError('rational with zero denominator');
  if (dd < 0n) {
    nn = -nn;
    dd = -dd;
  }
  const g = gcd(nn, dd) || 1n;
  return { n: nn / g, d: dd / g };
}

/**
 * The exact value of a decimal as written: "0.075" is 75/1000. A JS number
 * is read through its shortest round-trip text (String(0.075) === "0.075"),
 * which is the decimal a person typed in a policy file.
 */
export function fromDecimal(value: number | string): Rational | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const m =
    /^([+-]?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text) ?? /^([+-]?)()\.(\d+)(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return null;
  const sign = m[1] === '-' ? -1n : 1n;
  const intPart = m[2] ?? '';
  const frac = m[3] ?? '';
  const exp = Number(m[4] ?? '0');
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 400) return null;
  const digits = BigInt((intPart + frac).replace(/^0+(?=\d)/, '') || '0');
  const scale = frac.length - exp;
  return scale >= 0 ? rat(sign * digits, 10n ** BigInt(scale)) : rat(sign * digits * 10n ** BigInt(-scale));
}

export function add(a: Rational, b: Rational): Rational {
  return rat(a.n * b.d + b.n * a.d, a.d * b.d);
}

export function sub(a: Rational, b: Rational): Rational {
  return rat(a.n * b.d - b.n * a.d, a.d * b.d);
}

export function mul(a: Rational, b: Rational): Rational {
  return rat(a.n * b.n, a.d * b.d);
}

/** -1, 0 or 1. */
export function cmp(a: Rational, b: Rational): -1 | 0 | 1 {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
}

export function max(a: Rational, b: Rational): Rational {
  return cmp(a, b) >= 0 ? a : b;
}

export function min(a: Rational, b: Rational): Rational {
  return cmp(a, b) <= 0 ? a : b;
}

/** Smallest integer ≥ r. */
export function ceil(r: Rational): bigint {
  const q = r.n / r.d;
  return r.n > 0n && q * r.d !== r.n ? q + 1n : q;
}

/** Largest integer ≤ r. */
export function floor(r: Rational): bigint {
  const q = r.n / r.d;
  return r.n < 0n && q * r.d !== r.n ? q - 1n : q;
}

/** True when r has a finite decimal expansion with at most `digits` places. */
export function isExactAt(r: Rational, digits: number): boolean {
  return (r.n * 10n ** BigInt(digits)) % r.d === 0n;
}

/** Decimal text rounded half away from zero to `digits` places. */
export function toFixed(r: Rational, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const neg = r.n < 0n;
  const absN = neg ? -r.n : r.n;
  const scaled = (absN * scale * 2n + r.d) / (2n * r.d);
  const whole = (scaled / scale).toString();
  const frac = (scaled % scale).toString().padStart(digits, '0');
  const body = digits > 0 ? `${whole}.${frac}` : whole;
  return neg && scaled !== 0n ? `-${body}` : body;
}

/** Nearest double of an exact ratio of (possibly huge) bigints, without overflow. */
export function ratioToNumber(num: bigint, den: bigint): number {
  if (den === 0n) throw new RangeError('zero denominator');
  if (num === 0n) return 0;
  const neg = num < 0n !== den < 0n;
  const a = num < 0n ? -num : num;
  const b = den < 0n ? -den : den;
  const shift = b.toString(2).length - a.toString(2).length + 64;
  const q = shift >= 0 ? (a << BigInt(shift)) / b : a / (b << BigInt(-shift));
  // Two steps so 2^-shift does not underflow before the multiplication does.
  const half = Math.trunc(shift / 2);
  const value = Number(q) * 2 ** -half * 2 ** -(shift - half);
  return neg ? -value : value;
}

export function toNumber(r: Rational): number {
  return ratioToNumber(r.n, r.d);
}
