import { UsageError } from '../core/errors.js';

/**
 * An API key travels in a header, which carries visible ASCII only: a key with spaces, control or
 * non-ASCII characters (a pasted line break, curly quotes) is refused before any request (exit 2).
 */
export function checkKeyText(key: string): void {
  if (key === '') throw new UsageError('the API key is empty', { reason: 'bad-key-text' });
  if (/[^\x21-\x7e]/.test(key)) {
    const what = /[\s\u0000-\u001f\u007f]/.test(key)
      ? 'spaces or control characters'
      : 'characters an HTTP header cannot carry (only visible ASCII)';
    throw new UsageError(`the API key contains ${what}`, { reason: 'bad-key-text' });
  }
}
