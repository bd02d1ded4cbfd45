use super::*;

#[test]
fn typo_suggestions() {
    let keys = ["behaviors", "intent", "artifacts", "tier", "to", "id"];
    assert_eq!(closest("behaviours", keys), Some("behaviors"));
    assert_eq!(closest("Intent", keys), Some("intent"));
    assert_eq!(closest("artefacts", keys), Some("artifacts"));
    assert_eq!(closest("tire", keys), Some("tier"));
    assert_eq!(closest("ib", keys), None);
    assert_eq!(closest("zzz", keys), None);
    assert_eq!(closest("0.8", ["0.7", "0.6"]), None);
}

#[test]
fn whole_floats_count_as_integers() {
    let schema = serde_json::json!({"type": "integer", "minimum": 1, "maximum": 4});
    let node = super::super::yaml::parse("4.0").unwrap().unwrap();
    assert!(check(&node, &schema).is_empty());
    let node = super::super::yaml::parse("4.5").unwrap().unwrap();
    let v = check(&node, &schema);
    assert_eq!(
        v[0].message,
        "the spec must be a whole number, found a fraction"
    );
}
