"use client";

import { useState } from "react";
import { errorMessage } from "@/components/api/client";
import type { Group } from "@/components/api/types";
import { useGroupChange } from "@/components/hooks/use-groups";
import { Button } from "@/components/ui/button";
import { Panel } from "@/components/ui/panel";

/** The groups, their members (from single sign-on or set here), and editing them. */
export function GroupsTable({ groups, usernames }: { groups: Group[]; usernames: string[] }) {
  if (groups.length === 0) {
    return (
      <Panel title="Groups">
        <p className="text-sm text-zinc-600">
          No groups yet. Add one above, then name it in a form&apos;s <code>access:</code> (launch, observe, approve).
        </p>
      </Panel>
    );
  }
  return (
    <Panel title="Groups">
      <ul className="divide-y divide-zinc-100" data-testid="groups">
        {groups.map((group) => (
          <GroupRow key={group.id} group={group} usernames={usernames} />
        ))}
      </ul>
    </Panel>
  );
}

function GroupRow({ group, usernames }: { group: Group; usernames: string[] }) {
  const change = useGroupChange();
  const [editing, setEditing] = useState<Set<string> | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);

  const save = () => {
    if (!editing) return;
    change.mutate({ kind: "members", name: group.name, users: [...editing].sort() }, { onSuccess: () => setEditing(null) });
  };
  const toggle = (username: string) =>
    setEditing((current) => {
      const next = new Set(current);
      if (next.has(username)) next.delete(username);
      else next.add(username);
      return next;
    });

  return (
    <li className="py-3" data-testid={`group-${group.name}`}>
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <div className="font-mono text-sm font-semibold text-zinc-900">{group.name}</div>
          {group.description && <div className="text-xs text-zinc-500">{group.description}</div>}
          <div className="mt-1 flex flex-wrap gap-1.5 text-xs" data-testid="group-members">
            {group.members.length === 0 && <span className="text-zinc-500">no members</span>}
            {group.members.map((member) => (
              <span
                key={member.username}
                className="rounded bg-zinc-100 px-1.5 py-0.5 text-zinc-800"
                title={member.source === "oidc" ? "from the single sign-on groups claim: set again at each sign-in" : "added by an admin"}
              >
                {member.username}
                {member.source === "oidc" && <span className="ml-1 text-[10px] text-indigo-700 uppercase">sso</span>}
              </span>
            ))}
          </div>
        </div>
        <div className="flex shrink-0 items-center gap-2">
          {editing === null && (
            <Button
              variant="secondary"
              onClick={() => setEditing(new Set(group.members.map((m) => m.username)))}
              data-testid="edit-members"
            >
              Edit members
            </Button>
          )}
          {confirmDelete ? (
            <>
              <span className="text-xs text-zinc-600">Delete {group.name}?</span>
              <Button variant="dangerSolid" disabled={change.isPending} onClick={() => change.mutate({ kind: "delete", name: group.name })}>
                Delete
              </Button>
              <Button variant="secondary" onClick={() => setConfirmDelete(false)}>
                Keep
              </Button>
            </>
          ) : (
            <Button variant="danger" onClick={() => setConfirmDelete(true)} data-testid="delete-group">
              Delete
            </Button>
          )}
        </div>
      </div>
      {editing !== null && (
        <div className="mt-3 rounded-md border border-zinc-200 p-3">
          <p className="mb-2 text-xs text-zinc-600">
            The ticked users become exactly the members (single sign-on users get their claimed groups back at their next sign-in).
          </p>
          <div className="grid grid-cols-2 gap-1 sm:grid-cols-4">
            {usernames.map((username) => (
              <label key={username} className="flex items-center gap-2 text-sm text-zinc-800">
                <input
                  type="checkbox"
                  checked={editing.has(username)}
                  onChange={() => toggle(username)}
                  data-testid={`member-${username}`}
                />
                {username}
              </label>
            ))}
          </div>
          <div className="mt-3 flex gap-2">
            <Button variant="primary" disabled={change.isPending} onClick={save} data-testid="save-members">
              Save members
            </Button>
            <Button variant="secondary" onClick={() => setEditing(null)}>
              Cancel
            </Button>
          </div>
        </div>
      )}
      {change.isError && <p className="mt-2 text-sm text-red-700">{errorMessage(change.error)}</p>}
    </li>
  );
}
