/** A response body as JSON when it is JSON, else its text (an error page, a plain message, nothing). */
export function parseLenient(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
