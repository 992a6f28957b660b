//! Names of the options every door takes by name (goal, notation, and in
//! the search crate algorithm, heuristic, strategy), read in one place so
//! that every door refuses an unknown one with the same message.

use std::fmt;

/// A name that is none of a kind's: the message lists the names there are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// What was asked for ("goal", "notation"...).
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// The names there are.
    pub names: Vec<&'static str>,
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let article = match self.what.chars().next() {
            Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
            _ => "a",
        };
        write!(f, "\"{}\" is not {article} {}: use ", self.given, self.what)?;
        for (i, name) in self.names.iter().enumerate() {
            let before = match i {
                0 => "",
                _ if i + 1 == self.names.len() => " or ",
                _ => ", ",
            };
            write!(f, "{before}\"{name}\"")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownName {}

/// The value of `all` whose `name` is `given`.
pub fn parse_name<T: Copy>(
    what: &'static str,
    given: &str,
    all: &[T],
    name: impl Fn(T) -> &'static str,
) -> Result<T, UnknownName> {
    all.iter()
        .copied()
        .find(|&value| name(value) == given)
        .ok_or_else(|| UnknownName {
            what,
            given: given.to_string(),
            names: all.iter().map(|&value| name(value)).collect(),
        })
}

/// An option given by name in a request's `field`, or its default when
/// absent; the message names the field.
pub fn named_field<T: std::str::FromStr<Err = UnknownName> + Default>(
    name: Option<&str>,
    field: &str,
) -> Result<T, String> {
    name.map_or(Ok(T::default()), |name| {
        name.parse().map_err(|e| format!("{field}: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use crate::{Goal, Notation};

    #[test]
    fn unknown_names_list_the_names_there_are() {
        assert_eq!("blank-first".parse::<Goal>(), Ok(Goal::BlankFirst));
        assert_eq!("blank".parse::<Notation>(), Ok(Notation::Blank));
        assert_eq!(
            "last".parse::<Goal>().unwrap_err().to_string(),
            "\"last\" is not a goal: use \"blank-last\" or \"blank-first\""
        );
        let algorithm = super::parse_name("algorithm", "dfs", &[1], |_| "idastar");
        assert_eq!(
            algorithm.unwrap_err().to_string(),
            "\"dfs\" is not an algorithm: use \"idastar\""
        );
        assert_eq!(
            "Tile".parse::<Notation>().unwrap_err().to_string(),
            "\"Tile\" is not a notation: use \"tile\" or \"blank\""
        );
    }

    /// A field absent is the default; a name given is read as its kind's,
    /// and an unknown one is refused naming the field.
    #[test]
    fn a_named_field_names_the_field() {
        assert_eq!(
            super::named_field::<Goal>(None, "goal"),
            Ok(Goal::BlankLast)
        );
        assert_eq!(
            super::named_field::<Notation>(Some("blank"), "notation"),
            Ok(Notation::Blank)
        );
        assert_eq!(
            super::named_field::<Goal>(Some("up"), "goal").unwrap_err(),
            "goal: \"up\" is not a goal: use \"blank-last\" or \"blank-first\""
        );
    }
}
