// The Python virtualenv the SOAP client tests run zeep in (test/clients/). It lives in
// .cache/python-venv (git-ignored) and is built from scripts/python/requirements.txt, with pip from
// PyPI, only when it is missing, broken, or was built from other requirements.
//
// On a fresh machine `python3 -m venv` is all it takes. Debian's python3 ships without ensurepip
// unless python3-venv is installed: then, as root, apt-get installs it; otherwise virtualenv is
// fetched with pip into .cache/python-tools and builds the virtualenv instead.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const REQUIREMENTS_FILE = resolve(repoRoot, 'scripts/python/requirements.txt');
export const ZEEP_CLIENT_SCRIPT = resolve(repoRoot, 'scripts/python/zeep_client.py');

export interface PythonVenvOptions {
  /** Where the virtualenv lives; default .cache/python-venv. */
  venvDir?: string;
  requirementsFile?: string;
  /** The interpreter the virtualenv is made from; default $OSSN_PYTHON or python3. */
  python?: string;
  /** Progress lines for a person; default stderr as `python-venv: <line>`. */
  log?: (line: string) => void;
}

/** Written into the virtualenv once it is complete: what it was built from. */
const STAMP_FILE = '.ossn-requirements';

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the command could not start at all (e.g. not on the PATH). */
  spawnError?: Error;
}

function run(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((done) => {
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    // Our own timer, not spawn's `timeout`: that one is left running when the command never starts.
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000);
    timer.unref();
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (spawnError) => {
      clearTimeout(timer);
      done({ code: null, stdout, stderr, spawnError });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/** The last lines of a failed command's output, for an error message. */
function tail(result: RunResult, lines = 6): string {
  if (result.spawnError) return result.spawnError.message;
  const text = `${result.stderr}\n${result.stdout}`.trim().split('\n').slice(-lines).join('\n');
  return text || `exit code ${result.code}`;
}

const ok = (result: RunResult) => result.code === 0;

function venvPython(venvDir: string): string {
  return process.platform === 'win32' ? resolve(venvDir, 'Scripts', 'python.exe') : resolve(venvDir, 'bin', 'python');
}

async function stampOf(python: string, requirements: string): Promise<string> {
  const version = await run(python, ['-c', 'import sys; print(sys.version)']);
  if (!ok(version)) throw new Error(`${python} does not run: ${tail(version)}`);
  return createHash('sha256').update(requirements).update('\0').update(version.stdout.trim()).digest('hex');
}

/** True when the virtualenv is complete, built from these requirements, and imports zeep. */
async function isCurrent(venvDir: string, stamp: string): Promise<boolean> {
  const python = venvPython(venvDir);
  if (!existsSync(python)) return false;
  const stored = await readFile(resolve(venvDir, STAMP_FILE), 'utf8').catch(() => undefined);
  if (stored?.trim() !== stamp) return false;
  return ok(await run(python, ['-c', 'import zeep']));
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;
const missingEnsurepip = (result: RunResult) => /ensurepip|python3(\.\d+)?-venv/i.test(result.stderr + result.stdout);

/** Makes an empty virtualenv (with pip) in `target`, by whichever way this machine allows. */
async function createVirtualenv(python: string, target: string, cacheDir: string, log: (line: string) => void): Promise<void> {
  const attempts: string[] = [];
  const venv = await run(python, ['-m', 'venv', target]);
  if (ok(venv)) return;
  attempts.push(`${python} -m venv: ${tail(venv, 3)}`);
  await rm(target, { recursive: true, force: true });

  if (missingEnsurepip(venv) && isRoot() && ok(await run('sh', ['-c', 'command -v apt-get']))) {
    const minor = (await run(python, ['-c', 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")'])).stdout.trim();
    const packages = ['python3-venv', ...(minor ? [`python${minor}-venv`] : [])];
    log(`${python} lacks ensurepip; installing ${packages.join(' ')} with apt-get`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    let apt = await run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { env });
    if (!ok(apt)) {
      await run('apt-get', ['update'], { env });
      apt = await run('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { env });
    }
    if (ok(apt)) {
      const again = await run(python, ['-m', 'venv', target]);
      if (ok(again)) return;
      attempts.push(`${python} -m venv after apt-get: ${tail(again, 3)}`);
      await rm(target, { recursive: true, force: true });
    } else {
      attempts.push(`apt-get install ${packages.join(' ')}: ${tail(apt, 3)}`);
    }
  }

  // virtualenv brings its own pip; fetched with the interpreter's pip when it is not installed.
  const tools = resolve(cacheDir, 'python-tools');
  const withTools = { ...process.env, PYTHONPATH: [tools, process.env.PYTHONPATH].filter(Boolean).join(':') };
  if (!ok(await run(python, ['-m', 'virtualenv', '--version'], { env: withTools }))) {
    log(`installing virtualenv with pip into ${tools}`);
    const pip = await run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '--target', tools, 'virtualenv'], { env: withTools });
    if (!ok(pip)) attempts.push(`${python} -m pip install virtualenv: ${tail(pip, 3)}`);
  }
  const virtualenv = await run(python, ['-m', 'virtualenv', '--quiet', target], { env: withTools });
  if (ok(virtualenv)) return;
  attempts.push(`${python} -m virtualenv: ${tail(virtualenv, 3)}`);
  await rm(target, { recursive: true, force: true });
  throw new Error(
    `cannot create a Python virtualenv (install python3-venv, or pip for ${python}):\n  ${attempts.join('\n  ')}`,
  );
}

/**
 * Returns the path of a Python interpreter that has the pinned zeep, building the virtualenv first
 * when it is missing, incomplete or stale. The virtualenv is built beside its final place and then
 * renamed, so an interrupted build never looks complete; concurrent callers may both build, and
 * the first rename wins.
 */
export async function ensurePythonVenv(options: PythonVenvOptions = {}): Promise<string> {
  const venvDir = resolve(options.venvDir ?? resolve(repoRoot, '.cache/python-venv'));
  const requirementsFile = options.requirementsFile ?? REQUIREMENTS_FILE;
  const basePython = options.python ?? (process.env.OSSN_PYTHON || 'python3');
  const log = options.log ?? ((line: string) => process.stderr.write(`python-venv: ${line}\n`));

  const requirements = await readFile(requirementsFile, 'utf8');
  const stamp = await stampOf(basePython, requirements);
  if (await isCurrent(venvDir, stamp)) return venvPython(venvDir);

  const cacheDir = dirname(venvDir);
  await mkdir(cacheDir, { recursive: true });
  const partial = `${venvDir}.partial-${process.pid}-${randomBytes(3).toString('hex')}`;
  const started = Date.now();
  log(`building ${venvDir} from ${requirementsFile} (zeep from PyPI; first run or requirements changed)`);
  try {
    await createVirtualenv(basePython, partial, cacheDir, log);
    const python = venvPython(partial);
    const pip = await run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-r', requirementsFile], {
      timeoutMs: 900_000,
    });
    if (!ok(pip)) throw new Error(`pip install -r ${requirementsFile} failed:\n${tail(pip, 12)}`);
    const check = await run(python, ['-c', 'import zeep; print(zeep.__version__)']);
    if (!ok(check)) throw new Error(`zeep does not import after installing it: ${tail(check)}`);
    await writeFile(resolve(partial, STAMP_FILE), `${stamp}\n`);

    // Replace a stale virtualenv; if another caller finished first, keep theirs when it is current.
    if (await isCurrent(venvDir, stamp)) return venvPython(venvDir);
    await rm(venvDir, { recursive: true, force: true });
    try {
      await rename(partial, venvDir);
    } catch (error) {
      if (!(await isCurrent(venvDir, stamp))) throw error;
    }
    log(`zeep ${check.stdout.trim()} ready in ${venvDir} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return venvPython(venvDir);
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
}
