import { UsageError } from './usage.js';

/**
 * A password typed at a terminal, nothing shown while it is typed (the terminal's echo off, as
 * passwd and ssh do), asked twice; or, piped, the first line of stdin.
 */
export async function readPassword(
  input: NodeJS.ReadStream = process.stdin,
  prompt: NodeJS.WriteStream = process.stderr,
  question = 'password (not shown): ',
): Promise<string> {
  if (!input.isTTY) return (await readAll(input)).split(/\r?\n/)[0] ?? '';
  const first = await readHidden(input, prompt, question);
  const again = await readHidden(input, prompt, 'the same again: ');
  if (first !== again) throw new UsageError('the two passwords differ; nothing changed');
  return first;
}

async function readAll(input: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** One line typed in raw mode (no echo); backspace edits, Ctrl-C or Ctrl-D gives up. */
function readHidden(input: NodeJS.ReadStream, prompt: NodeJS.WriteStream, question: string): Promise<string> {
  // Echo off before the question shows: what is typed (or pasted) at once is not shown either.
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  prompt.write(question);
  return new Promise((resolve, reject) => {
    let typed: string[] = [];
    const end = () => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      prompt.write('\n');
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') {
          end();
          resolve(typed.join(''));
          return;
        }
        if (char === '\u0003' || char === '\u0004') {
          end();
          reject(new UsageError('no password given; nothing changed'));
          return;
        }
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else if (char >= ' ') typed.push(char);
      }
    };
    input.on('data', onData);
  });
}
