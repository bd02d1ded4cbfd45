//! The hook's stdin parsed within a small constant of its size: a JSON
//! value built like `serde_json::Value`, but counting its nodes and giving
//! up past [`MAX_NODES`]. An agent's event has a few dozen nodes; a
//! hostile one of 16 MiB of `[0,0,0,...]` would be 8 million `Value`s
//! (32 bytes each, plus the vectors' slack: over 600 MB), and is refused
//! after the first [`MAX_NODES`] instead.

use std::cell::Cell;
use std::fmt;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// The most nodes (values, keys included) an event may have.
pub const MAX_NODES: usize = 100_000;

/// `input` as a JSON value, `None` when it is not JSON or has more than
/// [`MAX_NODES`] nodes.
pub fn parse(input: &[u8]) -> Option<Value> {
    let count = Cell::new(0usize);
    let mut de = serde_json::Deserializer::from_slice(input);
    let value = Counted { count: &count }.deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(value)
}

/// A seed that builds a [`Value`] and counts every node into `count`.
#[derive(Clone, Copy)]
struct Counted<'c> {
    count: &'c Cell<usize>,
}

impl Counted<'_> {
    fn tick<E: serde::de::Error>(&self) -> Result<(), E> {
        let n = self.count.get() + 1;
        self.count.set(n);
        if n > MAX_NODES {
            return Err(E::custom("the event has too many values"));
        }
        Ok(())
    }
}

impl<'de> DeserializeSeed<'de> for Counted<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, de: D) -> Result<Value, D::Error> {
        de.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counted<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Value, E> {
        self.tick()?;
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Value, E> {
        self.tick()?;
        Ok(Value::from(v))
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Value, E> {
        self.tick()?;
        Ok(Value::from(v))
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Value, E> {
        self.tick()?;
        Ok(Value::from(v))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Value, E> {
        self.tick()?;
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Value, E> {
        self.tick()?;
        Ok(Value::String(v))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        self.tick()?;
        Ok(Value::Null)
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.tick()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.tick()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            self.tick::<A::Error>()?;
            let value = map.next_value_seed(self)?;
            // As `serde_json::Value` would, the last of a duplicate wins.
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_an_event_and_refuses_too_many_nodes() {
        let event = br#"{"tool_input": {"file_path": "/a.spec.yaml", "n": [1, 2.5, null, true]}}"#;
        assert_eq!(parse(event), serde_json::from_slice::<Value>(event).ok());
        let many = format!("[{}0]", "0,".repeat(MAX_NODES));
        assert_eq!(parse(many.as_bytes()), None);
        let fits = format!("[{}0]", "0,".repeat(MAX_NODES - 2));
        assert!(parse(fits.as_bytes()).is_some());
        assert_eq!(parse(b"{} x"), None);
    }
}
