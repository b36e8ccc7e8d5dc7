# -*- coding: utf-8 -*-
# MIT License (see the collection's galaxy.yml)

DOCUMENTATION = r"""
name: cluster_endpoint
short_description: The lab cluster's API address
description: The https address of the first control node, at a port.
positional: port
options:
  _input:
    description: The control nodes (groups['control']).
    type: list
    required: true
  port:
    description: The API port.
    type: int
    default: 6443
"""

from ansible.errors import AnsibleFilterError


def cluster_endpoint(nodes, port=6443):
    if not nodes:
        raise AnsibleFilterError("cluster_endpoint: no control node in the inventory")
    return "https://%s:%d" % (sorted(nodes)[0], int(port))


class FilterModule(object):
    def filters(self):
        return {"cluster_endpoint": cluster_endpoint}
