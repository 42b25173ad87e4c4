import { useQueryClient } from "@tanstack/react-query";
import { Link, Outlet, useNavigate, useParams } from "@tanstack/react-router";
import { DropdownMenu } from "radix-ui";
import { managementApi, unwrap } from "../api/management-client";
import { useSession } from "../features/session/session-query";
import { NAVIGATION, type NavigationItem } from "./navigation";
import { type CurrentWorkspace, roleAtLeast, useNavigationWorkspace } from "./workspace-context";

/** Every signed-in page: skip link, top bar (workspace switcher, user menu), sidebar, and the page. */
export function AppShell() {
	const current = useNavigationWorkspace();
	return (
		<div className="app">
			<a className="skip-link" href="#main">
				Skip to content
			</a>
			<header className="topbar">
				<Link to="/" className="brand">
					AI Application Platform
				</Link>
				<WorkspaceSwitcher current={current} />
				<UserMenu />
			</header>
			<nav className="sidebar" aria-label="Main">
				{current ? <SidebarNavigation current={current} /> : null}
			</nav>
			<main id="main" className="content" tabIndex={-1}>
				<Outlet />
			</main>
		</div>
	);
}

function hrefOf(item: NavigationItem, current: CurrentWorkspace): string {
	if (item.scope === "workspace") return `/workspaces/${current.workspace.id}${item.path ? `/${item.path}` : ""}`;
	if (item.scope === "organization") return `/organizations/${current.organization.id}/${item.path}`;
	return item.path;
}

function SidebarNavigation({ current }: { current: CurrentWorkspace }) {
	return (
		<>
			{NAVIGATION.map((group) => {
				const items = group.items.filter((item) => !item.minimumRole || roleAtLeast(current.role, item.minimumRole));
				if (items.length === 0) return null;
				return (
					<div className="nav-group" key={group.title}>
						<p className="nav-group-title">{group.title}</p>
						<ul className="nav-list">
							{items.map((item) => (
								<li key={item.label}>
									<Link to={hrefOf(item, current)} className="nav-link" activeOptions={{ exact: item.path === "" }} activeProps={{ "aria-current": "page" }}>
										{item.label}
									</Link>
								</li>
							))}
						</ul>
					</div>
				);
			})}
		</>
	);
}

function WorkspaceSwitcher({ current }: { current: CurrentWorkspace | undefined }) {
	const session = useSession();
	const navigate = useNavigate();
	const params = useParams({ strict: false }) as { workspaceId?: string };
	if (!session) return null;
	return (
		<div className="switcher row">
			<label htmlFor="workspace-switcher" className="visually-hidden">
				Workspace
			</label>
			<select
				id="workspace-switcher"
				className="input select"
				value={current?.workspace.id ?? params.workspaceId ?? ""}
				onChange={(event) => navigate({ to: "/workspaces/$workspaceId", params: { workspaceId: event.target.value } })}
			>
				{current ? null : <option value="">Choose a workspace</option>}
				{session.organizations.map((organization) => (
					<optgroup key={organization.id} label={`${organization.name} (${organization.role})`}>
						{organization.workspaces.map((workspace) => (
							<option key={workspace.id} value={workspace.id}>
								{workspace.name}
							</option>
						))}
					</optgroup>
				))}
			</select>
		</div>
	);
}

function UserMenu() {
	const session = useSession();
	const queryClient = useQueryClient();
	const navigate = useNavigate();
	if (!session) return null;
	const signOut = async (everywhere: boolean) => {
		unwrap(await managementApi.session.signOut({ query: { everywhere: everywhere ? "true" : "false" } }));
		queryClient.clear();
		await navigate({ to: "/login", search: { redirect: undefined } });
	};
	return (
		<DropdownMenu.Root>
			<DropdownMenu.Trigger asChild>
				<button type="button" className="button button-ghost" aria-label={`Account: ${session.user.email}`}>
					{session.user.name ?? session.user.email}
				</button>
			</DropdownMenu.Trigger>
			<DropdownMenu.Portal>
				<DropdownMenu.Content className="menu" align="end" sideOffset={4}>
					<DropdownMenu.Label className="menu-label">Signed in as {session.user.email}</DropdownMenu.Label>
					<DropdownMenu.Separator className="menu-separator" />
					<DropdownMenu.Item className="menu-item" onSelect={() => void signOut(false)}>
						Sign out
					</DropdownMenu.Item>
					<DropdownMenu.Item className="menu-item" onSelect={() => void signOut(true)}>
						Sign out everywhere
					</DropdownMenu.Item>
				</DropdownMenu.Content>
			</DropdownMenu.Portal>
		</DropdownMenu.Root>
	);
}
