/** The text of a thrown value: an `Error`'s message, anything else as a string. The one copy of the plugins. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
