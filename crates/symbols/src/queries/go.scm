; notarai's symbol outline for Go. @def.KIND is the symbol's node, @name its
; name; a method is named from its receiver (code:
; `receiver_name`).

(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
; Package-level `type` specs (also inside `type ( ... )`); a type local to a
; function is not a symbol.
(source_file (type_declaration (type_spec name: (type_identifier) @name) @def.type))
(source_file (type_declaration (type_alias name: (type_identifier) @name) @def.type))

; Package-level `const` specs, one each, also inside `const ( ... )`.
(source_file (const_declaration (const_spec name: (identifier) @name) @def.const))
