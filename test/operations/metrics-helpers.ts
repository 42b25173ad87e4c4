/** One scrape of the Prometheus text format: `name{label="value",…}` (labels sorted) -> value. */
export type Scrape = Map<string, number>;

export function parseScrape(text: string): Scrape {
	const series: Scrape = new Map();
	for (const line of text.split("\n")) {
		if (line === "" || line.startsWith("#")) continue;
		const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
		if (!match) continue;
		const [, name, labels = "", value] = match;
		series.set(seriesKey(name, Object.fromEntries([...labels.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, text]) => [key, text]))), Number(value));
	}
	return series;
}

export function seriesKey(name: string, labels: Record<string, string> = {}): string {
	const sorted = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
	return sorted.length === 0 ? name : `${name}{${sorted.map(([key, value]) => `${key}="${value}"`).join(",")}}`;
}

/** How much a series moved between two scrapes (absent counts as 0). */
export function moved(before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}): number {
	const key = seriesKey(name, labels);
	return (after.get(key) ?? 0) - (before.get(key) ?? 0);
}
