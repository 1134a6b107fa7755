/**
 * The glance at a corpus's text that starts engines before the corpus is read (src/core/corpus/glance.ts): the
 * CLI's prestart and the app's warm-up. It only has to be right on ordinary corpora and say null when unsure.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { glanceAtCorpus } from '../../src/core/corpus/glance.ts';

describe('glanceAtCorpus', () => {
  it('reads the engine and every fixture named, in order, from the built-in corpora', () => {
    const text = readFileSync(new URL('../../fixtures/corpora/execution_goldens.yaml', import.meta.url), 'utf8');
    expect(glanceAtCorpus(text)).toEqual({
      engine: 'duckdb',
      fixture: 'retail',
      fixtures: ['retail', 'retail_monthly'],
    });
  });

  it('reads YAML with quotes and comments, and JSON', () => {
    expect(
      glanceAtCorpus(
        'engine: \'sqlite\'  # here\ncases:\n  - id: a\n    fixture: "db_one" # one\n  - fixture: db_two\n',
      ),
    ).toEqual({ engine: 'sqlite', fixture: 'db_one', fixtures: ['db_one', 'db_two'] });
    expect(
      glanceAtCorpus('{"engine": "duckdb", "cases": [{"fixture": "x"}, {"fixture": "y"}, {"fixture": "x"}]}'),
    ).toEqual({ engine: 'duckdb', fixture: 'x', fixtures: ['x', 'y'] });
  });

  it('says null when it cannot tell', () => {
    expect(glanceAtCorpus('cases:\n  - fixture: x\n')).toBeNull(); // no engine
    expect(glanceAtCorpus('engine: duckdb\ncases: []\n')).toBeNull(); // no fixture
    expect(glanceAtCorpus('')).toBeNull();
  });
});
