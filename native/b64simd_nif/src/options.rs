//! Option maps, read only here: keys and values are atoms of the core's `LAYOUT`
//! (made at load), read to its flags; Base16's one option, its case, comes as an atom.
//! `options/1` and `option_problem/2` serve Erlang's messages, so no rule is written twice.

use crate::atoms;
use crate::entry::nif;
use b64simd_core::options::{line_length_flags, unset_flags, Kind, LAYOUT};
use rustler::sys::{enif_get_map_size, enif_get_map_value, ERL_NIF_TERM as RawTerm};
use rustler::{Atom, Encoder, Env, Error, NifResult, Term, TermType};
use std::sync::OnceLock;

/// An option of a kind, as erl_nif terms of its atoms (never collected, so valid
/// for the VM's life); no `values` for the line length, a positive integer.
struct Row {
    key: RawTerm,
    values: Vec<(RawTerm, u64)>,
    /// Every bit its values set.
    bits: u64,
}

/// A kind's options, and the flags of `#{mode => urlsafe, padding => false}` if it takes them.
struct Options {
    rows: Vec<Row>,
    urlsafe_unpadded: Option<u64>,
}

/// The commonest map (JWT's, HyperBEAM IDs'), passed by `b64simd` as this atom: a
/// map's two lookups cost more than the options' budget (`bench/README.md`, "Small calls").
const URLSAFE_UNPADDED: &str = "urlsafe_unpadded";

/// Each kind's options, at its index, and the atom `URLSAFE_UNPADDED`.
static OPTIONS: OnceLock<(Vec<Options>, RawTerm)> = OnceLock::new();

/// Makes the atoms of `LAYOUT`, at load.
pub(crate) fn init(env: Env) {
    let atom = |name: &str| {
        let atom = Atom::from_str(env, name).unwrap_or_else(|_| atoms::undefined());
        atom.to_term(env).as_c_arg()
    };
    OPTIONS.get_or_init(|| {
        let kinds = Kind::ALL.iter().map(|&kind| {
            let rows: Vec<Row> = LAYOUT
                .iter()
                .filter(|(of, _, _)| *of == kind)
                .map(|(_, key, values)| Row {
                    key: atom(key),
                    values: values
                        .iter()
                        .map(|&(value, bits)| (atom(value), bits))
                        .collect(),
                    bits: values.iter().fold(0, |all, (_, bits)| all | bits),
                })
                .collect();
            let set = |flags: Option<u64>, key: &str, value: &str| {
                let row = rows.iter().find(|row| row.key == atom(key))?;
                let &(_, bits) = row.values.iter().find(|(v, _)| *v == atom(value))?;
                Some(flags? & !row.bits | bits)
            };
            let unpadded = set(Some(unset_flags(kind)), "mode", "urlsafe");
            let urlsafe_unpadded = set(unpadded, "padding", "false");
            Options {
                rows,
                urlsafe_unpadded,
            }
        });
        (kinds.collect(), atom(URLSAFE_UNPADDED))
    });
}

fn options_of(kind: Kind) -> Option<(&'static Options, RawTerm)> {
    let (kinds, preset) = OPTIONS.get()?;
    Some((&kinds[kind as usize], *preset))
}

fn rows(kind: Kind) -> &'static [Row] {
    options_of(kind).map_or(&[], |(options, _)| &options.rows)
}

enum Problem<'a> {
    NotAMap,
    Unknown(Term<'a>),
    BadValue(Term<'a>, Term<'a>),
}

/// The flags of `kind`'s options, `badarg` for options it does not take.
#[inline]
pub(crate) fn flags(kind: Kind, options: Term) -> NifResult<u64> {
    read(kind, options).ok_or(Error::BadArg)
}

/// Reads a map by looking the kind's keys up (cheaper than walking a small map) with
/// erl_nif's calls, not rustler's `map_get`, whose `NifResult<Term>` stalls (`entry::Made`).
fn read(kind: Kind, options: Term) -> Option<u64> {
    let (env, map) = (options.get_env(), options.as_c_arg());
    let (of_kind, urlsafe_unpadded) = options_of(kind)?;
    if map == urlsafe_unpadded {
        return of_kind.urlsafe_unpadded;
    }
    let mut size = 0;
    // SAFETY: `map` is a term of `env`, the running call's; erl_nif writes `size` only.
    if unsafe { enif_get_map_size(env.as_c_arg(), map, &mut size) } == 0 {
        return None;
    }
    let mut flags = unset_flags(kind);
    let mut found = 0;
    for row in &of_kind.rows {
        if found == size {
            break;
        }
        let mut value = 0;
        // SAFETY: as above; `row.key` is an atom's term, valid in any
        // environment; erl_nif writes `value` only.
        if unsafe { enif_get_map_value(env.as_c_arg(), map, row.key, &mut value) } == 0 {
            continue;
        }
        found += 1;
        // SAFETY: a term of `env`, which erl_nif gave.
        flags = flags & !row.bits | value_bits(row, unsafe { Term::new(env, value) })?;
    }
    (found == size).then_some(flags)
}

/// What `read` refuses: not a map, the first bad value in the kind's order, or an unknown key.
fn problem<'a>(kind: Kind, options: Term<'a>) -> Option<Problem<'a>> {
    if read(kind, options).is_some() {
        return None;
    }
    if !options.is_map() {
        return Some(Problem::NotAMap);
    }
    for row in rows(kind) {
        // SAFETY: an atom's term, valid in any environment.
        let key = unsafe { Term::new(options.get_env(), row.key) };
        match options.map_get(key) {
            Ok(value) if value_bits(row, value).is_none() => {
                return Some(Problem::BadValue(key, value))
            }
            _ => {}
        }
    }
    Some(Problem::Unknown(unknown_key(kind, options)))
}

/// The bits of a value of `row`: one of its atoms, or a line length.
#[inline]
fn value_bits(row: &Row, value: Term) -> Option<u64> {
    if row.values.is_empty() {
        return line_length_flags(positive_integer(value)?);
    }
    let value = value.as_c_arg();
    row.values
        .iter()
        .find(|&&(atom, _)| atom == value)
        .map(|&(_, bits)| bits)
}

/// A positive integer's value, a bignum's as the largest (no line is longer).
fn positive_integer(term: Term) -> Option<u64> {
    match term.decode::<u64>() {
        Ok(value) => Some(value),
        Err(_) if term.get_type() == TermType::Integer && term.decode::<i64>().is_err() => {
            // Not a u64 nor an i64: a bignum, positive if above zero.
            (term > 0.encode(term.get_env())).then_some(u64::MAX)
        }
        Err(_) => None,
    }
}

/// A key of `options` that `kind` does not take (`read` found one).
fn unknown_key<'a>(kind: Kind, options: Term<'a>) -> Term<'a> {
    let known = |key: Term| rows(kind).iter().any(|row| row.key == key.as_c_arg());
    rustler::types::map::MapIterator::new(options)
        .and_then(|mut pairs| pairs.find(|&(key, _)| !known(key)))
        .map_or_else(
            || atoms::undefined().to_term(options.get_env()),
            |(key, _)| key,
        )
}

/// The flags of Base16's letter case, `badarg` for an atom it does not take.
pub(crate) fn case_flags(kind: Kind, case: Term) -> NifResult<u64> {
    rows(kind)
        .first()
        .and_then(|row| value_bits(row, case))
        .ok_or(Error::BadArg)
}

fn kind_of(term: Term) -> NifResult<Kind> {
    let name = term.atom_to_string()?;
    Kind::ALL
        .into_iter()
        .find(|kind| kind.name() == name)
        .ok_or(Error::BadArg)
}

/// `b64simd_nif:options(Kind)`: `[{Key, [Atom] | pos_integer}]`, in `LAYOUT`'s order.
fn options<'a>(env: Env<'a>, [kind]: [Term<'a>; 1]) -> NifResult<Term<'a>> {
    let list: Vec<Term> = rows(kind_of(kind)?)
        .iter()
        .map(|row| {
            let values = match row.values.is_empty() {
                true => atoms::pos_integer().encode(env),
                false => row
                    .values
                    .iter()
                    // SAFETY: atoms' terms, valid in any environment.
                    .map(|&(atom, _)| unsafe { Term::new(env, atom) })
                    .collect::<Vec<_>>()
                    .encode(env),
            };
            // SAFETY: an atom's term, valid in any environment.
            (unsafe { Term::new(env, row.key) }, values).encode(env)
        })
        .collect();
    Ok(list.encode(env))
}

nif!("options" / 1, options);

/// `b64simd_nif:option_problem(Kind, Options)`: `none`, `not_a_map`, `{unknown_option, Key}`
/// or `{bad_value, Key, Value}` (for Base16, `Options` is its letter case).
fn option_problem<'a>(env: Env<'a>, [kind, options]: [Term<'a>; 2]) -> NifResult<Term<'a>> {
    let kind = kind_of(kind)?;
    let problem = match kind {
        Kind::HexEncode | Kind::HexDecode => match case_flags(kind, options) {
            Ok(_) => None,
            // SAFETY: an atom's term, valid in any environment.
            Err(_) => rows(kind)
                .first()
                .map(|row| Problem::BadValue(unsafe { Term::new(env, row.key) }, options)),
        },
        _ => problem(kind, options),
    };
    Ok(match problem {
        None => atoms::none().encode(env),
        Some(Problem::NotAMap) => atoms::not_a_map().encode(env),
        Some(Problem::Unknown(key)) => (atoms::unknown_option(), key).encode(env),
        Some(Problem::BadValue(key, value)) => (atoms::bad_value(), key, value).encode(env),
    })
}

nif!("option_problem" / 2, option_problem);
