; notarai's symbol outline for Python. @def.KIND is the symbol's node, @name
; its name. Qualified names come from the enclosing symbols.

(function_definition name: (identifier) @name) @def.function
(class_definition name: (identifier) @name) @def.class

; Module-level assignments to an UPPER_CASE name.
(module (expression_statement (assignment left: (identifier) @name) @def.const)
  (#match? @name "^_*[A-Z][A-Z0-9_]*$"))
