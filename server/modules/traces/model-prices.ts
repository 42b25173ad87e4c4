/**
 * List prices in USD per million tokens, which is also micro-USD per token. Models not listed
 * cost 0 (self-hosted openai-compatible models usually are free at the margin); dated snapshots
 * (`gpt-4o-2024-08-06`) fall back to their family by longest matching prefix.
 */
const PRICES_PER_MILLION_TOKENS: Record<string, { input: number; output: number }> = {
	"gpt-4o": { input: 2.5, output: 10 },
	"gpt-4o-mini": { input: 0.15, output: 0.6 },
	"gpt-4.1": { input: 2, output: 8 },
	"gpt-4.1-mini": { input: 0.4, output: 1.6 },
	"gpt-4.1-nano": { input: 0.1, output: 0.4 },
	"o3-mini": { input: 1.1, output: 4.4 },
	"o4-mini": { input: 1.1, output: 4.4 },
	"gpt-3.5-turbo": { input: 0.5, output: 1.5 },
	"mistral-large-latest": { input: 2, output: 6 },
	"mistral-medium-latest": { input: 0.4, output: 2 },
	"mistral-small-latest": { input: 0.1, output: 0.3 },
	"open-mistral-nemo": { input: 0.15, output: 0.15 },
	"codestral-latest": { input: 0.3, output: 0.9 },
};

const MODELS_LONGEST_FIRST = Object.keys(PRICES_PER_MILLION_TOKENS).sort((a, b) => b.length - a.length);

/** The listed model a name is priced as (itself, or its family for a dated snapshot); undefined when unlisted. */
export function pricedModelOf(model: string): string | undefined {
	if (Object.hasOwn(PRICES_PER_MILLION_TOKENS, model)) return model;
	return MODELS_LONGEST_FIRST.find((name) => model.startsWith(`${name}-`));
}

export function priceOf(model: string): { input: number; output: number } | undefined {
	const listed = pricedModelOf(model);
	return listed === undefined ? undefined : PRICES_PER_MILLION_TOKENS[listed];
}

/** Rounded up: a quota must never be under-counted. */
export function costInMicroUsd(model: string, usage: { inputTokens: number; outputTokens: number }): number {
	const price = priceOf(model);
	if (!price) return 0;
	return Math.ceil(usage.inputTokens * price.input + usage.outputTokens * price.output);
}
