"""The rule catalog: one page per rule, the one home of its words (the facts block at its top
holds the summary, message, suggestion and fix safety the rule's class reads). Shipped inside
the package as torchlint.rule_pages."""
