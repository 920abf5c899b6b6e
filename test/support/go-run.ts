// `go run` of one of our small Go programs under scripts/ (compose-check, rules-check), as the
// tests use them: build and module caches under the repository's .cache/ (git-ignored), modules
// through the Go module proxy, a clear message when Go is missing.
import { execFile } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Runs `go run . <args>` in scripts/<program>, `input` on its standard input; rejects when it exits non-zero. */
export async function goRun(program: string, args: string[], input = ''): Promise<{ stdout: string; stderr: string }> {
  const env = {
    ...process.env,
    GOCACHE: join(repo, '.cache/go-build'),
    GOMODCACHE: join(repo, '.cache/go-mod'),
    GOFLAGS: '-buildvcs=false -mod=readonly -modcacherw',
  };
  try {
    await run('go', ['version'], { env, timeout: 30_000 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`scripts/${program} needs Go 1.21 or later (\`go\` is not on the PATH): install it with \`apt-get install golang\` (or from https://go.dev/dl/), then run the tests again`);
    }
    throw error;
  }
  // The first run downloads the program's modules through the Go module proxy and builds it: minutes at most.
  const running = run('go', ['run', '.', ...args], { cwd: join(repo, 'scripts', program), env, timeout: 540_000, maxBuffer: 64 * 1024 * 1024 });
  running.child.stdin?.end(input);
  return running;
}
