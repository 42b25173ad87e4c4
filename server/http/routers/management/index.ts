import type { RouteDefinition } from "../../pipeline";
import { accountRoutes } from "./account";
import { sessionRoutes } from "./session";

/** Every route of the management contract (contract/management), through the one pipeline. */
export function managementRoutes(): RouteDefinition[] {
	return [...sessionRoutes(), ...accountRoutes()];
}
