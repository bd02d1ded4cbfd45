; notarai's symbol outline for Rust (see ../../../README.md, "Symbol anchors").
; @def.KIND is the symbol's node, @name its name; an impl block is named from
; its `type` and `trait` (code: `impl_name`). Qualified names come from the enclosing symbols.

(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(union_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(trait_item name: (type_identifier) @name) @def.trait
(impl_item type: (_)) @def.impl
(type_item name: (type_identifier) @name) @def.type

; Module-level `const` and `static` only (not inside a function or an impl).
(source_file (const_item name: (identifier) @name) @def.const)
(source_file (static_item name: (identifier) @name) @def.static)
(mod_item body: (declaration_list (const_item name: (identifier) @name) @def.const))
(mod_item body: (declaration_list (static_item name: (identifier) @name) @def.static))

; An inline module is a path prefix; `mod name;` is not a symbol.
(mod_item name: (identifier) @name body: (declaration_list)) @def.module
