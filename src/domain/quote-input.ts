/** The longest input an error message repeats whole; a longer one is cut, with an ellipsis. */
export const MAX_QUOTED_LENGTH = 32;

/** An API key, or a piece of one: never repeated, wherever it was pasted. */
const KEY_LIKE = /msr_/i;
const KEY_LIKE_ANYWHERE = /msr_[0-9A-Za-z_]*…?/gi;
/** A key's prefix alone names an environment and holds nothing secret: a message may say which one it wants. */
const BARE_PREFIX = /^msr_(live|test)_$/;

/**
 * A caller's input as an error message (or `param`) may repeat it: at most 32 characters, and never
 * anything that looks like an API key — a key pasted into `from` must not come back in a response,
 * where logs, screenshots and support tickets would keep it.
 */
export function shownInput(input: string): string {
  if (KEY_LIKE.test(input)) return 'msr_…';
  const chars = Array.from(input);
  return chars.length > MAX_QUOTED_LENGTH ? `${chars.slice(0, MAX_QUOTED_LENGTH - 1).join('')}…` : input;
}

/** `'input'` for a message, shown as shownInput says. */
export function quoteInput(input: string): string {
  return `'${shownInput(input)}'`;
}

/**
 * The same rule for a message built elsewhere (graphql-js repeats variable values and names in its
 * own messages): key-like text is cut to `msr_…` (a bare `msr_live_`/`msr_test_` prefix stays), and a
 * double-quoted string over the length is shortened.
 */
export function redactMessage(message: string): string {
  return (
    message
      .replace(KEY_LIKE_ANYWHERE, (found) => (BARE_PREFIX.test(found) ? found : 'msr_…'))
      // Every quoted string in turn (so quotes pair up), shortened only when it is long.
      .replace(/"((?:[^"\\]|\\.)*)"/g, (whole, quoted: string) =>
        Array.from(quoted).length > MAX_QUOTED_LENGTH ? `"${shownInput(quoted)}"` : whole,
      )
  );
}
