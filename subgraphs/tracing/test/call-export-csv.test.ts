import { describe, expect, it } from 'vitest';
import { CSV_COLUMNS, csvLine } from '../call/call-export.js';

describe('CSV export of calls', () => {
  it('keeps a spreadsheet from running traced text as a formula, and leaves other values as they are', () => {
    const line = csvLine({
      id: 'c1',
      op_name: '=HYPERLINK("http://evil.example","open")',
      display_name: '@SUM(A1)',
      output: '-2+3',
      exception: 'plain text',
      attributes: { note: '=1+1' },
      summary: { weave: { status: 'success', latency_ms: 12 } },
    });
    const fields = line.trimEnd().split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/);
    const field = (name: (typeof CSV_COLUMNS)[number]) => fields[CSV_COLUMNS.indexOf(name)];
    expect(field('op_name')).toBe(`"'=HYPERLINK(""http://evil.example"",""open"")"`);
    expect(field('display_name')).toBe("'@SUM(A1)");
    expect(field('output')).toBe("'-2+3");
    expect(field('exception')).toBe('plain text');
    // JSON columns start with { or [ and numbers are numbers: nothing to guard.
    expect(field('attributes')).toBe('"{""note"":""=1+1""}"');
    expect(field('latency_ms')).toBe('12');
  });
});
