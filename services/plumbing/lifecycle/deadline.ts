/** `work`, or a rejection naming `what` once `ms` have passed (the work itself is left to finish or fail unobserved). */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  work.catch(() => undefined); // a late failure must not become an unhandled rejection
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
