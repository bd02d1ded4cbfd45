; notarai's symbol outline for JavaScript (and JSX). @def.KIND is the
; symbol's node, @name its name. Qualified names come from the enclosing symbols.

(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (identifier) @name) @def.class
(class_body (method_definition name: (_) @name) @def.method)
(class_body (field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)]) @def.method)

; Module-level `const` / `let`: a function when its value is an arrow or
; function expression, else a const.
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.const))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def.const)))

; Methods of a module-level object literal: `const api = { get() {} }`.
(variable_declarator value: (object (method_definition name: (_) @name) @def.method))
(variable_declarator value: (object (pair
  key: (_) @name
  value: [(arrow_function) (function_expression)]) @def.method))
