; notarai's symbol outline for TypeScript and TSX. @def.KIND is the symbol's
; node, @name its name. Qualified names come from the enclosing symbols.

(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(function_signature name: (identifier) @name) @def.function
(class_declaration name: (type_identifier) @name) @def.class
(abstract_class_declaration name: (type_identifier) @name) @def.class
(class_body (method_definition name: (_) @name) @def.method)
(class_body (abstract_method_signature name: (_) @name) @def.method)
(class_body (method_signature name: (_) @name) @def.method)
(class_body (public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression)]) @def.method)
(interface_declaration name: (type_identifier) @name) @def.interface
(type_alias_declaration name: (type_identifier) @name) @def.type
(enum_declaration name: (identifier) @name) @def.enum
(internal_module name: (_) @name) @def.namespace
(module name: (_) @name) @def.namespace

; Module-level (or namespace-level) `const` / `let`: a function when its
; value is an arrow or function expression, else a const.
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.const))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def.const)))
(internal_module body: (statement_block (lexical_declaration (variable_declarator name: (identifier) @name) @def.const)))
(internal_module body: (statement_block (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def.const))))

; Methods of a module-level object literal: `const api = { get() {} }`.
(variable_declarator value: (object (method_definition name: (_) @name) @def.method))
(variable_declarator value: (object (pair
  key: (_) @name
  value: [(arrow_function) (function_expression)]) @def.method))
