#!/usr/bin/python
# -*- coding: utf-8 -*-
# MIT License (see the collection's galaxy.yml)

DOCUMENTATION = r"""
module: node_status
short_description: What the lab's roles left on a node
description:
  - Reads the state folder the lab example's roles write for a node (its container runtime's
    configuration, its cluster membership) and returns it. Changes nothing.
options:
  state_dir:
    description: The node's state folder.
    type: path
    required: true
author: Playform
"""

EXAMPLES = r"""
- playform.lab.node_status:
    state_dir: "{{ lab_root }}/{{ inventory_hostname }}"
  register: status
"""

RETURN = r"""
runtime:
  description: The container runtime configured on the node, or null.
  type: str
  returned: always
joined:
  description: Whether the node joined the cluster.
  type: bool
  returned: always
files:
  description: The files of the node's state folder, sorted.
  type: list
  elements: str
  returned: always
"""

import os

from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec=dict(state_dir=dict(type="path", required=True)), supports_check_mode=True)
    state_dir = module.params["state_dir"]
    if not os.path.isdir(state_dir):
        if module.check_mode:
            # A check run created nothing: there is nothing to read yet, which is no failure.
            module.exit_json(changed=False, runtime=None, joined=False, files=[], msg="check mode: %s not created" % state_dir)
        module.fail_json(msg="no state folder %s: run the lab's roles first" % state_dir)
    files = []
    for root, _dirs, names in os.walk(state_dir):
        for name in names:
            files.append(os.path.relpath(os.path.join(root, name), state_dir))
    runtime = None
    config = os.path.join(state_dir, "runtime", "config.toml")
    if os.path.exists(config):
        with open(config) as handle:
            for line in handle:
                if line.startswith("runtime ="):
                    runtime = line.split("=", 1)[1].strip().strip('"')
    joined = os.path.exists(os.path.join(state_dir, "cluster", "joined"))
    module.exit_json(changed=False, runtime=runtime, joined=joined, files=sorted(files))


if __name__ == "__main__":
    main()
