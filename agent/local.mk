# agent: rules are added as the part is built.
include agent/runtime.mk
