/**
 * A strict reader of Prometheus' text exposition format (version 0.0.4), for tests: it throws on any line the
 * format does not allow, a sample of a family without `# TYPE`, a sample name that does not fit its family's type,
 * a family declared twice and a series exposed twice — what `promtool check metrics` and a scrape would reject.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help?: string;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** A float as Go's ParseFloat reads it (what Prometheus uses): NaN and Inf in any case (prom-client writes `Nan`). */
const VALUE = /^(?:[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|infinity)|nan)$/i;
const SUFFIXES: Record<Family['type'], string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('the exposition must end with a line feed');
  lines.forEach((line, index) => {
    const at = `line ${index + 1}: ${JSON.stringify(line)}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const meta = new RegExp(`^# (HELP|TYPE) (${NAME}) (.*)$`).exec(line);
      if (!meta) {
        if (/^# (HELP|TYPE)\b/.test(line)) throw new Error(`malformed ${at}`);
        return; // a comment
      }
      const [, kind, name, rest] = meta as unknown as [string, 'HELP' | 'TYPE', string, string];
      let family = families.get(name);
      if (kind === 'TYPE') {
        if (family?.type && family.samples.length) throw new Error(`TYPE after samples, ${at}`);
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`unknown type, ${at}`);
        if (family && family.type !== 'untyped') throw new Error(`family ${name} declared twice, ${at}`);
        family = { name, type: rest as Family['type'], help: family?.help, samples: family?.samples ?? [] };
        families.set(name, family);
      } else {
        if (family?.help !== undefined) throw new Error(`HELP twice for ${name}, ${at}`);
        families.set(name, { name, type: family?.type ?? 'untyped', help: rest, samples: family?.samples ?? [] });
      }
      return;
    }
    const sample = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`).exec(line);
    if (!sample) throw new Error(`malformed sample, ${at}`);
    const [, name, labelText, valueText] = sample as unknown as [string, string, string | undefined, string];
    if (!VALUE.test(valueText)) throw new Error(`bad value, ${at}`);
    const labels = parseLabels(labelText ?? '', at);
    const family = [...families.values()].find((candidate) => SUFFIXES[candidate.type].some((suffix) => `${candidate.name}${suffix}` === name));
    if (!family) throw new Error(`sample without a declared family, ${at}`);
    if (family.type === 'histogram' && name.endsWith('_bucket') && labels.le === undefined) throw new Error(`bucket without le, ${at}`);
    const key = `${name}{${Object.entries(labels).sort().map(([label, value]) => `${label}=${value}`).join(',')}}`;
    if (seen.has(key)) throw new Error(`series exposed twice, ${at}`);
    seen.add(key);
    family.samples.push({ name, labels, value: /inf/i.test(valueText) ? (valueText.startsWith('-') ? -Infinity : Infinity) : Number(valueText) });
  });
  return families;
}

function parseLabels(text: string, at: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length) {
    const match = /^([^=]+)="((?:[^"\\\n]|\\["\\n])*)"(,|$)/.exec(rest);
    if (!match) throw new Error(`malformed labels, ${at}`);
    const [whole, name, value] = match as unknown as [string, string, string];
    if (!LABEL_NAME.test(name)) throw new Error(`bad label name ${name}, ${at}`);
    if (name in labels) throw new Error(`label ${name} twice, ${at}`);
    labels[name] = value.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    rest = rest.slice(whole.length);
  }
  return labels;
}

/** Every sample of the exposition. */
export function samplesOf(families: Map<string, Family>): Sample[] {
  return [...families.values()].flatMap((family) => family.samples);
}
