/**
 * Running a command: the database, the use cases and the MCP tools, loaded only when a command
 * runs (help and usage errors never pay for them). A command that mirrors a tool is validated with
 * that tool's input schema and runs that tool's adapter, so the CLI and MCP call the same use case
 * with the same input; operator-only commands call their use case directly.
 */
import { z } from "zod";
import { loadConfig } from "../../server/config";
import { resolveDatabase } from "../../server/db/database-url";
import { MCP_TOOLS } from "../../server/mcp/tool-registry";
import { getKnowledgeDocument } from "../../server/modules/knowledge/get-knowledge-document";
import { getKnowledgeSource } from "../../server/modules/knowledge/get-knowledge-source";
import { listConnections } from "../../server/modules/oauth/list-connections";
import { revokeConnection } from "../../server/modules/oauth/revoke-connection";
import { setOrganizationMcpAdministration } from "../../server/modules/oauth/set-organization-mcp-administration";
import { retireOldSigningKeys, rotateSigningKey } from "../../server/modules/oauth/signing-keys";
import { createUseCaseContext, type UseCaseContext } from "../../server/modules/platform-services";
import { bootstrapInstallation } from "../../server/modules/tenancy/bootstrap";
import { createUser } from "../../server/modules/tenancy/create-user";
import { createPlatformServices } from "../../server/platform";
import { AppError } from "../../server/shared/app-error";
import { createLogger } from "../../server/shared/logger";
import { OPERATOR } from "../../server/shared/principal";
import { flagForField } from "./command-line";
import type { CommandSpec } from "./command-spec";
import type { Failure } from "./print";

/** Use cases the table names by key; their inputs are checked by the use cases themselves. */
type Input = Record<string, unknown>;
const OPERATOR_USE_CASES = {
	bootstrapInstallation: (context: UseCaseContext, input: Input) => bootstrapInstallation(context, input as Parameters<typeof bootstrapInstallation>[1]),
	createUser: (context: UseCaseContext, input: Input) => createUser(context, input as Parameters<typeof createUser>[1]),
	listConnections: (context: UseCaseContext, input: Input) => listConnections(context, input as Parameters<typeof listConnections>[1]),
	revokeConnection: (context: UseCaseContext, input: Input) => revokeConnection(context, input as Parameters<typeof revokeConnection>[1]),
	setOrganizationMcpAdministration: (context: UseCaseContext, input: Input) =>
		setOrganizationMcpAdministration(context, input as Parameters<typeof setOrganizationMcpAdministration>[1]),
	rotateSigningKey: (context: UseCaseContext) => rotateSigningKey(context, {}),
	retireOldSigningKeys: (context: UseCaseContext) => retireOldSigningKeys(context, {}),
	getKnowledgeSource: (context: UseCaseContext, input: Input) => getKnowledgeSource(context, input as Parameters<typeof getKnowledgeSource>[1]),
	getKnowledgeDocument: (context: UseCaseContext, input: Input) => getKnowledgeDocument(context, input as Parameters<typeof getKnowledgeDocument>[1]),
};

export type OperatorUseCase = keyof typeof OPERATOR_USE_CASES;

export type PreparedCommand = (context: UseCaseContext) => Promise<unknown>;

/**
 * Checks the input against the mirrored tool's schema (before any connection is opened) and
 * returns what runs it. Throws AppError VALIDATION_ERROR with the use case's field names.
 */
export function prepareCommand(command: CommandSpec, input: Input): PreparedCommand {
	const tool = command.tool ? MCP_TOOLS.find((candidate) => candidate.name === command.tool) : undefined;
	let checked = input;
	if (tool) {
		const relaxed = Object.fromEntries((command.operatorOptional ?? []).map((key) => [key, true as const]));
		const parsed = z.object(tool.inputSchema).partial(relaxed).safeParse(input);
		if (!parsed.success) throw AppError.validation(parsed.error.issues.map((issue) => ({ field: issue.path.join(".") || "input", issue: issue.message })));
		checked = parsed.data;
	}
	if (command.useCase) {
		const useCase = OPERATOR_USE_CASES[command.useCase];
		return (context) => useCase(context, checked);
	}
	if (!tool) throw new Error(`The command '${command.path}' mirrors the tool ${command.tool}, which this build does not have`);
	return (context) => tool.run(context, checked);
}

/** Runs a prepared command as the operator, on the server's database and SECRET_KEY. */
export async function runAsOperator(prepared: PreparedCommand): Promise<unknown> {
	const config = loadConfig();
	const database = await resolveDatabase({ databaseUrl: config.databaseUrl, dataDirectory: config.dataDirectory, relocationDirectory: config.embeddedPostgresDirectory, log: () => {} });
	try {
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
			// The same use cases as HTTP and MCP, with the operator as principal.
			return await prepared(createUseCaseContext(platform.services, OPERATOR));
		} finally {
			await platform.close();
		}
	} finally {
		await database.stop();
	}
}

/** An error as the CLI reports it, its fields named by the flags they came from. */
export function describeFailure(command: CommandSpec, given: ReadonlySet<string>, error: unknown): Failure {
	if (error instanceof AppError) {
		return {
			code: error.code,
			message: error.message,
			...(error.fields ? { fields: error.fields.map((field) => ({ field: flagForField(command, field.field, given), issue: field.issue })) } : {}),
		};
	}
	return { code: "INTERNAL_ERROR", message: error instanceof Error ? error.message : String(error) };
}
