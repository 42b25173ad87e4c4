/**
 * Operator CLI: `npm run --silent admin -- <command> [--flags] --json`.
 * Prints one JSON object on stdout; errors go to stderr as JSON with a non-zero exit.
 * It opens the same database as the server (sharing a running embedded PostgreSQL) and
 * encrypts with the same SECRET_KEY, so it is safe to use while the server runs.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../server/config";
import { resolveDatabase } from "../server/db/database-url";
import { createApiKey } from "../server/modules/api-keys/create-api-key";
import { revokeApiKey } from "../server/modules/api-keys/revoke-api-key";
import { createAssistant } from "../server/modules/assistants/create-assistant";
import { createAssistantVersion } from "../server/modules/assistants/create-assistant-version";
import { publishAssistantVersion } from "../server/modules/assistants/publish-assistant-version";
import { rollbackAssistantDeployment } from "../server/modules/assistants/rollback-assistant-deployment";
import { updateAssistantDraft } from "../server/modules/assistants/update-assistant-draft";
import { createUseCaseContext, type UseCaseContext } from "../server/modules/platform-services";
import { setProviderCredential } from "../server/modules/provider-credentials/set-provider-credential";
import { bootstrapInstallation } from "../server/modules/tenancy/bootstrap";
import { createUser } from "../server/modules/tenancy/create-user";
import { createPlatformServices } from "../server/platform";
import { AppError } from "../server/shared/app-error";
import { EVALUATION_COMMANDS, EVALUATION_OPTIONS, EVALUATION_USAGE } from "./admin/evaluation-commands";
import { createLogger } from "../server/shared/logger";
import { OPERATOR } from "../server/shared/principal";
import { type Flags, optional, required, UsageError } from "./admin/flags";
import { OAUTH_COMMANDS, OAUTH_FLAG_NAMES, OAUTH_USAGE } from "./admin/oauth-commands";

const USAGE = `Usage: npm run --silent admin -- <command> [options] --json

  bootstrap --organization NAME --workspace NAME --email EMAIL --password PASSWORD
  api-key create --workspace ID --scopes runtime:execute,knowledge:read,knowledge:write --name NAME
  api-key revoke --id ID
  provider-credential set --workspace ID --provider openai|mistral|openai-compatible --api-key KEY [--base-url URL]
  user create --email EMAIL --password PASSWORD --organization ID --role owner|admin|member|viewer
  assistant create --workspace ID --slug SLUG --name NAME
  assistant update-draft --workspace ID --slug SLUG [--provider P] [--model M] [--system-prompt TEMPLATE] [--variables JSON] [--config JSON] [--knowledge JSON]
  assistant create-version --workspace ID --slug SLUG [--note TEXT]
  assistant publish --workspace ID --slug SLUG --version N [--environment production]
  assistant rollback --workspace ID --slug SLUG [--environment production]${EVALUATION_USAGE}
${OAUTH_USAGE}`;


function jsonFlag(flags: Flags, name: string): unknown {
	const value = optional(flags, name);
	if (value === undefined) return undefined;
	try {
		return JSON.parse(value);
	} catch {
		throw new UsageError(`--${name} must be JSON`);
	}
}

function integerFlag(flags: Flags, name: string): number {
	const value = Number(required(flags, name));
	if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} must be a positive integer`);
	return value;
}

const COMMANDS: Record<string, (context: UseCaseContext, flags: Flags) => Promise<unknown>> = {
	...EVALUATION_COMMANDS,
	bootstrap: (context, flags) =>
		bootstrapInstallation(context, {
			organization: required(flags, "organization"),
			workspace: required(flags, "workspace"),
			email: required(flags, "email"),
			password: required(flags, "password"),
		}),
	"api-key create": async (context, flags) => {
		const created = await createApiKey(context, {
			workspaceId: required(flags, "workspace"),
			name: typeof flags.name === "string" ? flags.name : "API key",
			scopes: typeof flags.scopes === "string" ? flags.scopes.split(",").map((scope) => scope.trim()).filter(Boolean) : undefined,
		});
		return { id: created.id, key: created.key, scopes: created.scopes };
	},
	"api-key revoke": (context, flags) => revokeApiKey(context, { id: required(flags, "id") }),
	"provider-credential set": (context, flags) =>
		setProviderCredential(context, {
			workspaceId: required(flags, "workspace"),
			provider: required(flags, "provider"),
			apiKey: required(flags, "api-key"),
			baseUrl: typeof flags["base-url"] === "string" ? flags["base-url"] : null,
		}),
	"assistant create": (context, flags) =>
		createAssistant(context, { workspaceId: required(flags, "workspace"), slug: required(flags, "slug"), name: required(flags, "name") }),
	"assistant update-draft": (context, flags) => {
		const patch = Object.fromEntries(
			Object.entries({
				provider: optional(flags, "provider"),
				model: optional(flags, "model"),
				systemPrompt: optional(flags, "system-prompt"),
				variables: jsonFlag(flags, "variables"),
				generation: jsonFlag(flags, "config"),
				knowledge: jsonFlag(flags, "knowledge"),
			}).filter(([, value]) => value !== undefined),
		);
		return updateAssistantDraft(context, { workspaceId: required(flags, "workspace"), slug: required(flags, "slug"), patch });
	},
	"assistant create-version": (context, flags) =>
		createAssistantVersion(context, { workspaceId: required(flags, "workspace"), slug: required(flags, "slug"), note: optional(flags, "note") ?? null }),
	"assistant publish": (context, flags) =>
		publishAssistantVersion(context, {
			workspaceId: required(flags, "workspace"),
			slug: required(flags, "slug"),
			version: integerFlag(flags, "version"),
			environment: optional(flags, "environment"),
		}),
	"assistant rollback": (context, flags) =>
		rollbackAssistantDeployment(context, { workspaceId: required(flags, "workspace"), slug: required(flags, "slug"), environment: optional(flags, "environment") }),
	"user create": (context, flags) =>
		createUser(context, {
			email: required(flags, "email"),
			password: required(flags, "password"),
			organizationId: required(flags, "organization"),
			role: required(flags, "role"),
		}),
	...OAUTH_COMMANDS,
};

const OPTIONS = Object.fromEntries(
	[
		"organization", "workspace", "email", "password", "scopes", "name", "id", "provider", "api-key", "base-url", "role",
		"slug", "model", "system-prompt", "variables", "config", "knowledge", "note", "version", "environment",
		...OAUTH_FLAG_NAMES,
	].map((name) => [
		name,
		{ type: "string" as const },
	]),
);

function fail(exitCode: number, error: Record<string, unknown>): never {
	process.stderr.write(`${JSON.stringify({ error })}\n`);
	process.exit(exitCode);
}

async function main() {
	let parsed: ReturnType<typeof parseArgs>;
	try {
		parsed = parseArgs({ args: process.argv.slice(2), options: { ...OPTIONS, ...EVALUATION_OPTIONS, json: { type: "boolean" } }, allowPositionals: true, strict: true });
	} catch (error) {
		fail(2, { code: "USAGE", message: `${(error as Error).message}\n${USAGE}` });
	}
	const name = parsed.positionals.join(" ");
	const command = COMMANDS[name];
	if (!command) fail(2, { code: "USAGE", message: `Unknown command '${name}'\n${USAGE}` });

	const config = loadConfig();
	const database = await resolveDatabase({ databaseUrl: config.databaseUrl, dataDirectory: config.dataDirectory, relocationDirectory: config.embeddedPostgresDirectory, log: () => {} });
	const platform = await createPlatformServices(
		{
			databaseUrl: database.url,
			secretKey: config.secretKey,
			publicBaseUrl: () => config.publicBaseUrl,
			logger: createLogger("silent"),
			dataDirectory: config.dataDirectory,
			knowledge: config.knowledge,
			evaluations: config.evaluations,
			quotas: config.quotas,
			redisUrl: config.redisUrl,
			egress: config.egress,
		},
		"cli",
	);
	try {
		// The CLI is the operator: the same use cases as HTTP and MCP, with the operator as principal.
		const result = await command(createUseCaseContext(platform.services, OPERATOR), parsed.values as Flags);
		process.stdout.write(`${JSON.stringify(result)}\n`);
	} catch (error) {
		if (error instanceof UsageError) fail(2, { code: "USAGE", message: `${error.message}\n${USAGE}` });
		if (error instanceof AppError) fail(1, { code: error.code, message: error.message, ...(error.fields ? { fields: error.fields } : {}) });
		fail(1, { code: "INTERNAL_ERROR", message: error instanceof Error ? error.message : String(error) });
	} finally {
		await platform.close();
		await database.stop();
	}
}

await main();
