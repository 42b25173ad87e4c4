import { QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createQueryClient } from "./app/query-client";
import { createAppRouter } from "./app/router";
import "./styles/app.css";

const queryClient = createQueryClient(() => {
	// The session ended (idle, absolute lifetime, sign-out elsewhere, removal): sign in again, then come back here.
	if (window.location.pathname === "/login") return;
	queryClient.clear();
	const here = `${window.location.pathname}${window.location.search}`;
	void router.navigate({ to: "/login", search: { redirect: here } });
});
const router = createAppRouter(queryClient);

createRoot(document.getElementById("root") as HTMLElement).render(
	<StrictMode>
		<QueryClientProvider client={queryClient}>
			<RouterProvider router={router} />
		</QueryClientProvider>
	</StrictMode>,
);
