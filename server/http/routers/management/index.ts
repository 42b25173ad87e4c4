import type { RouteDefinition } from "../../pipeline";
import { accountRoutes } from "./account";
import { credentialsRoutes } from "./credentials";
import { invitationsRoutes } from "./invitations";
import { keysRoutes } from "./keys";
import { membersRoutes } from "./members";
import { organizationsRoutes } from "./organizations";
import { assistantRoutes } from "./assistants";
import { environmentRoutes } from "./environments";
import { evaluationRoutes } from "./evaluations";
import { knowledgeSourceRoutes } from "./knowledge-sources";
import { sessionRoutes } from "./session";
import { traceRoutes } from "./traces";

/** Every route of the management contract (contract/management), through the one pipeline. */
export function managementRoutes(): RouteDefinition[] {
	return [...sessionRoutes(), ...accountRoutes(), ...keysRoutes(), ...credentialsRoutes(), ...membersRoutes(), ...invitationsRoutes(), ...organizationsRoutes(), ...assistantRoutes(), ...environmentRoutes(), ...traceRoutes(), ...knowledgeSourceRoutes(), ...evaluationRoutes()];
}
