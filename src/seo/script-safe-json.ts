// JSON that can be pasted as is into an HTML `<script type="application/ld+json">` element, which
// is what JSON-LD is for: a title holding `</script>` must not end the element. The characters
// replaced occur in JSON text only inside strings, so the value read back is the same.

const unsafe = /[<>&\u2028\u2029]/g;
const escapes: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** JSON text with `<`, `>`, `&`, U+2028 and U+2029 written as `\u` escapes. */
export function scriptSafe(json: string): string {
  return json.replace(unsafe, (character) => escapes[character]!);
}

export function scriptSafeJson(value: unknown): string {
  return scriptSafe(JSON.stringify(value));
}
