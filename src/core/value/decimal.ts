/**
 * Exact decimal text. A decimal cell is canonical text such as `"-12.50"`:
 * an optional minus sign, at least one integer digit, and an optional
 * fraction whose length is the value's scale. Arithmetic goes through
 * bigint, never through binary floats.
 */

const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

export function isDecimalText(text: string): boolean {
  return DECIMAL_TEXT.test(text);
}

/** Render an unscaled integer with `scale` fraction digits: (1250n, 2) → "12.50". */
export function decimalFromUnscaled(unscaled: bigint, scale: number): string {
  const negative = unscaled < 0n;
  let digits = (negative ? -unscaled : unscaled).toString();
  if (scale <= 0) return (negative && digits !== '0' ? '-' : '') + digits + '0'.repeat(-scale);
  if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
  const text = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  return negative ? `-${text}` : text;
}

/** Split decimal text into its unscaled integer and scale: "12.50" → {1250n, 2}. */
export function decimalToUnscaled(text: string): { unscaled: bigint; scale: number } {
  if (!isDecimalText(text)) throw new RangeError(`not a decimal: ${JSON.stringify(text)}`);
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  const dot = body.indexOf('.');
  const intPart = dot < 0 ? body : body.slice(0, dot);
  const fraction = dot < 0 ? '' : body.slice(dot + 1);
  const unscaled = BigInt(intPart + fraction);
  return { unscaled: negative ? -unscaled : unscaled, scale: fraction.length };
}

/**
 * The value's shortest exact text: trailing fraction zeros dropped, "-0" → "0".
 * Two decimals (or a decimal and an integer) are equal by value exactly when
 * their normalized texts are equal: 10 = 10.00 = 10.000.
 */
export function normalizeDecimal(text: string): string {
  if (!isDecimalText(text)) throw new RangeError(`not a decimal: ${JSON.stringify(text)}`);
  let negative = text.startsWith('-');
  let body = negative ? text.slice(1) : text;
  if (body.includes('.')) body = body.replace(/0+$/, '').replace(/\.$/, '');
  body = body.replace(/^0+(?=\d)/, '');
  if (/^0(\.0*)?$/.test(body)) negative = false;
  return negative ? `-${body}` : body;
}

/** Exact comparison of two decimal texts: -1, 0 or 1. */
export function compareDecimal(a: string, b: string): number {
  const x = decimalToUnscaled(a);
  const y = decimalToUnscaled(b);
  const scale = Math.max(x.scale, y.scale);
  const xa = x.unscaled * 10n ** BigInt(scale - x.scale);
  const ya = y.unscaled * 10n ** BigInt(scale - y.scale);
  return xa < ya ? -1 : xa > ya ? 1 : 0;
}

/** Exact decimal text of an integer cell (number or bigint). */
export function integerToDecimal(value: number | bigint): string {
  return typeof value === 'bigint' ? value.toString() : BigInt(value).toString();
}

/** Parse the exact decimal text of a finite JS number as printed (e.g. 0.1 → "0.1"). */
export function floatToDecimalText(value: number): string | null {
  if (!Number.isFinite(value)) return null;
  const text = String(value);
  if (!/e/i.test(text)) return normalizeDecimal(text);
  // Expand exponent notation exactly from the printed digits.
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (!match) return null;
  const [, sign, lead, frac = '', exp] = match;
  const digits = BigInt(`${lead}${frac}`);
  const scale = frac.length - Number(exp);
  return normalizeDecimal(decimalFromUnscaled(sign === '-' ? -digits : digits, scale));
}
