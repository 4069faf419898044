"""The rule catalog: one page per rule. Shipped inside the package as torchlint.rule_pages."""
