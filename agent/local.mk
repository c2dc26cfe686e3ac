# agent: rules are added as the part is built.
