// Several SOAP answers of one service validated in one libxml2 run, as test/xsd/validate.ts
// validates one: starting the WebAssembly worker is most of a run's cost (about 90 ms), which a
// property test asking a dozen questions per stream cannot pay per answer.
import { readFile } from 'node:fs/promises';
import { validateXML } from 'xmllint-wasm';
import { officialSchemas, type XsdService } from '../xsd/validate.js';

let envelopeSchema: Promise<string> | undefined;

/** libxml2's messages for each invalid answer, by the name given; empty when all are valid. */
export async function invalidAnswers(service: XsdService, answers: { name: string; xml: string }[]): Promise<Record<string, string[]>> {
  if (answers.length === 0) return {};
  const schemas = await officialSchemas(service);
  envelopeSchema ??= readFile(new URL('../xsd/soap-envelope-1.1.xsd', import.meta.url), 'utf8');
  const envelope = (await envelopeSchema).replace('<!--SERVICE-IMPORT-->', `<xs:import namespace="${schemas.namespace}" schemaLocation="${schemas.service.fileName}"/>`);
  const fileName = (i: number) => `answer-${i}.xml`;
  const result = await validateXML({
    xml: answers.map((a, i) => ({ fileName: fileName(i), contents: a.xml })),
    schema: [{ fileName: 'soap-envelope.xsd', contents: envelope }],
    preload: [schemas.service, ...schemas.files],
    maxMemoryPages: 4096,
  });
  if (result.valid) return {};
  const invalid: Record<string, string[]> = {};
  for (const error of result.errors) {
    const i = answers.findIndex((_, n) => error.loc?.fileName === fileName(n));
    const name = answers[i]?.name ?? 'unattributed';
    (invalid[name] ??= []).push(error.message || error.rawMessage);
  }
  // An invalid run whose messages named no answer must not pass as valid.
  if (Object.keys(invalid).length === 0) invalid['unattributed'] = [result.rawOutput];
  return invalid;
}
