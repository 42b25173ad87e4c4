/** What one scorer says about one output: a score from 0 to 1, or why it could not score. */
export type ScorerOutcome =
	| { kind: "scored"; score: number; passed: boolean; reasoning: string; costMicroUsd?: number }
	| { kind: "error"; reason: string; costMicroUsd?: number };
