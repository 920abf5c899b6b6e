// The test tiers (vitest.config.ts, docs/development.md "Test tiers") partition the test files:
// every *.test.ts of the repository runs in exactly one project, none dropped by a glob that no
// project's include matches, none run twice by includes that overlap. The files each project runs
// are asked of vitest itself, as `vitest run --project <name>` finds them.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createVitest } from 'vitest/node';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from './docs/markdown.js';

const tiers = ['unit', 'integration', 'serial', 'cluster'] as const;

/** The *.test.ts files of the repository, tracked or new (not those git ignores: node_modules, .cache). */
function testFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.test.ts'], { cwd: repositoryRoot, encoding: 'utf8' });
  return [...new Set(listed.split('\n').filter(Boolean))].sort();
}

/** Each project's files, as vitest globs them from vitest.config.ts. */
async function filesByProject(): Promise<Map<string, string[]>> {
  const vitest = await createVitest('test', { root: repositoryRoot, watch: false, config: join(repositoryRoot, 'vitest.config.ts') }, {}, { stdout: process.stdout, stderr: process.stderr });
  try {
    const byProject = new Map<string, string[]>();
    for (const project of vitest.projects) {
      const { testFiles: files } = await project.globTestFiles();
      byProject.set(project.name, files.map((file) => relative(repositoryRoot, file)).sort());
    }
    return byProject;
  } finally {
    await vitest.close();
  }
}

describe('the test tiers', () => {
  it('run every *.test.ts file in exactly one project', { timeout: 60_000 }, async () => {
    const byProject = await filesByProject();
    expect([...byProject.keys()].sort()).toEqual([...tiers].sort());
    const all = testFiles();
    expect(all.length).toBeGreaterThan(150);
    const projectsOf = (file: string) => [...byProject].filter(([, files]) => files.includes(file)).map(([name]) => name);
    const notOnce = all.map((file) => ({ file, projects: projectsOf(file) })).filter(({ projects }) => projects.length !== 1);
    expect(notOnce).toEqual([]);
    // And no project runs a file that is not a test file of the repository.
    expect([...byProject.values()].flat().filter((file) => !all.includes(file))).toEqual([]);
    for (const tier of tiers) expect(byProject.get(tier)?.length, tier).toBeGreaterThan(0);

    // An integration file that starts `ossn` or a Kafka broker of its own runs in the serial tier.
    const ownProcesses = all.filter(
      (file) => file.endsWith('.int.test.ts') && /test\/support\/(ossn-cli|dedicated-kafka)\.js'/.test(readFileSync(join(repositoryRoot, file), 'utf8')),
    );
    expect(ownProcesses.length).toBeGreaterThan(0);
    expect(ownProcesses.filter((file) => !byProject.get('serial')?.includes(file))).toEqual([]);
  });
});
