import type { OperationClient } from "../core/operation.js";
import type { ClientConfig } from "../core/request.js";

/** What a resource needs of PlatformClient: operations, and the configuration for the calls it sends itself. */
export interface ResourceClient extends OperationClient {
	readonly config: ClientConfig;
}
