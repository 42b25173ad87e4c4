import { listConnections } from "../../server/modules/oauth/list-connections";
import { revokeConnection } from "../../server/modules/oauth/revoke-connection";
import { setOrganizationMcpAdministration } from "../../server/modules/oauth/set-organization-mcp-administration";
import type { UseCaseContext } from "../../server/modules/platform-services";
import { retireOldSigningKeys, rotateSigningKey } from "../../server/oauth/signing-keys";
import { type Flags, required, UsageError } from "./flags";

/** The MCP control plane's operator commands: connections, the organization's MCP administration switch, signing keys. */
export const OAUTH_COMMANDS: Record<string, (context: UseCaseContext, flags: Flags) => Promise<unknown>> = {
	"connection list": (context, flags) => listConnections(context, { userId: required(flags, "user") }),
	"connection revoke": (context, flags) => revokeConnection(context, { id: required(flags, "id") }),
	"organization set": (context, flags) => {
		const setting = required(flags, "mcp-admin");
		if (setting !== "enabled" && setting !== "disabled") throw new UsageError("--mcp-admin must be enabled or disabled");
		return setOrganizationMcpAdministration(context, { organizationId: required(flags, "id"), enabled: setting === "enabled" });
	},
	"signing-key rotate": (context) => rotateSigningKey(context.services.orm, context.services.secrets),
	"signing-key retire-old": (context) => retireOldSigningKeys(context.services.orm),
};

export const OAUTH_USAGE = `  connection list --user ID
  connection revoke --id ID
  organization set --id ID --mcp-admin disabled|enabled
  signing-key rotate
  signing-key retire-old`;

export const OAUTH_FLAG_NAMES = ["user", "mcp-admin"];
