// Lint: the recommended JS and TypeScript rules, without type information (fast; tsc checks types).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
	{ ignores: ["node_modules/", "sdk/src/generated/", "server/db/migrations/", "bench/results/", "bench/data/", ".data/", "coverage/", "dist/", "sdk/dist/"] },
	js.configs.recommended,
	...tseslint.configs.recommended,
	{
		rules: {
			"@typescript-eslint/no-explicit-any": "warn",
			"@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
			"@typescript-eslint/no-namespace": ["error", { allowDeclarations: true }],
			"no-control-regex": "off",
		},
	},
);
