import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const fixture = join(__dirname, '../../test/handles-typing.fixture.ts');
const EXPECTED_ERRORS = 4;

let previous: ts.Program | undefined;

/** Type-checks the fixture with `source` as its text; the second call reuses the first program's lib files. */
function compile(source: string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(__dirname, '../../tsconfig.spec.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.spec.json could not be read');
  const host = ts.createCompilerHost({ ...config.options, noEmit: true });
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => (name === fixture ? source : readFile(name));
  const program = ts.createProgram([fixture], { ...config.options, noEmit: true }, host, previous);
  previous = program;
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('HandlesRpc typing', () => {
  const source = readFileSync(fixture, 'utf8');

  it('compiles handlers that take exactly their contract request or its named refinement', () => {
    expect(compile(source)).toEqual([]);
  });

  it('refuses every handler whose parameter is not its message type', () => {
    const errors = compile(source.replace(/\/\/ @ts-expect-error.*\n/g, ''));
    expect(errors).toHaveLength(EXPECTED_ERRORS);
    expect(errors.every((error) => error.startsWith(fixture))).toBe(true);
  });
});
