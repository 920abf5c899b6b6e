// A read ended by its signal can fail with the server's interruption ("operation was interrupted")
// instead of the signal's reason: the driver races the two. The lookup's caller is told why it ended.

/** `read`, failing with the signal's reason whenever the signal ended it. */
export async function endedBySignal<T>(signal: AbortSignal | undefined, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}
