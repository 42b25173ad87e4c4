import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The dashboard: a single-page application served by the API server itself at `/` (server/http/web-assets.ts).
 * Everything is bundled (no CDN, nothing fetched at run time); assets carry content hashes in their
 * names, so the server caches them for a year and index.html not at all.
 */
export default defineConfig({
	root: import.meta.dirname,
	base: "/",
	plugins: [react()],
	build: {
		outDir: "../dist/web",
		emptyOutDir: true,
		assetsDir: "assets",
		sourcemap: true,
		// Every route's page is a lazy chunk: the first page loads the shell and that page only.
		chunkSizeWarningLimit: 600,
	},
	server: {
		// `npm run dev:web`: the API server on :3000 answers everything that is not a page.
		proxy: { "^/(management|runtime|knowledge|oauth|mcp|healthz|uploads|\\.well-known)": "http://localhost:3000" },
	},
});
