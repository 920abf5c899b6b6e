// The suffixes uniqueNames handed out in this test file: whatever holds one of them in its name on
// the shared servers is dropped after the file (leftovers.ts). Apart from leftovers.ts, so that
// servers.ts can register names without importing the clients, which import servers.ts.

const suffixes = new Set<string>();

/** Everything on the shared servers whose name holds `suffix` is dropped after the test file. */
export function dropAfterFile(suffix: string): void {
  suffixes.add(suffix);
}

/** The suffixes registered since the last call, which forgets them. */
export function takeSuffixes(): string[] {
  const taken = [...suffixes];
  suffixes.clear();
  return taken;
}
