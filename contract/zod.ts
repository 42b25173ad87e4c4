// The contract's zod, extended once with `.openapi()` metadata (names, examples) so that
// every schema carries its own documentation into openapi.yaml.
import { extendZodWithOpenApi } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";

extendZodWithOpenApi(z);

export { z };
