//! `cargo xtask imports`: loops between the modules of each crate.
//!
//! A module imports the modules its code names: `use` paths and paths in
//! code that start with `crate::`, `super::`, `self::` or a child's name,
//! followed through re-exports (`pub use`) to the module where the item
//! lives. Declaring a child (`mod x;`) is not an import, and an inline
//! module (`mod imp { .. }`) belongs to its file. Test-only code
//! (`#[cfg(test)]` items and modules) is left out, and production code
//! that names a test-only module is reported as well as loops.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// The crates checked: their source folders and root files.
pub fn workspace_crates(root: &Path) -> Vec<(String, PathBuf)> {
    let mut crates = Vec::new();
    let mut dirs: Vec<PathBuf> = fs::read_dir(root.join("crates"))
        .map(|entries| entries.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    dirs.sort();
    dirs.push(root.join("xtask"));
    for dir in dirs {
        for file in ["src/lib.rs", "src/main.rs"] {
            let root_file = dir.join(file);
            if root_file.is_file() {
                let name = dir
                    .strip_prefix(root)
                    .unwrap_or(&dir)
                    .join(file)
                    .display()
                    .to_string();
                crates.push((name, root_file));
            }
        }
    }
    crates
}

/// `cargo xtask imports`: prints each crate's modules, imports and loops;
/// fails when any crate has a loop or imports a test-only module.
pub fn run(args: &[String]) -> Result<(), String> {
    if let Some(arg) = args.first() {
        return Err(format!("imports takes no options, not {arg:?}"));
    }
    let root = crate::workspace::root();
    let mut failed = 0;
    for (name, root_file) in workspace_crates(&root) {
        let graph = Graph::load(&root_file)?;
        let problems = graph.problems();
        println!(
            "{name}: {} modules, {} imports, {}",
            graph.modules.len(),
            graph.edges.len(),
            if problems.is_empty() {
                "no loops".to_string()
            } else {
                format!("{} problems", problems.len())
            }
        );
        for problem in &problems {
            println!("  {problem}");
        }
        failed += problems.len();
    }
    if failed > 0 {
        return Err(format!(
            "{failed} import problems: move what both sides need into a module of its own"
        ));
    }
    Ok(())
}

/// One module: a file, with its inline modules.
struct Module {
    /// Its path in the crate ("crate" for the root).
    name: String,
    file: PathBuf,
    parent: Option<usize>,
    /// Non-test children, by name.
    children: BTreeMap<String, usize>,
    /// Children declared for tests only.
    test_children: BTreeSet<String>,
    /// `use` names: the name -> the path it stands for.
    aliases: BTreeMap<String, Vec<String>>,
    /// Paths named: (line, inline depth, segments).
    references: Vec<(usize, usize, Vec<String>)>,
}

/// The modules of one crate and what each imports.
pub struct Graph {
    modules: Vec<Module>,
    /// (from, to) -> the first place `from` names `to`.
    edges: BTreeMap<(usize, usize), String>,
    /// Production code naming a test-only module.
    test_imports: Vec<String>,
}

enum Target {
    Module(usize),
    TestOnly(String),
    Outside,
}

impl Graph {
    /// Reads the crate whose root file is `root_file`.
    pub fn load(root_file: &Path) -> Result<Graph, String> {
        let mut graph = Graph {
            modules: Vec::new(),
            edges: BTreeMap::new(),
            test_imports: Vec::new(),
        };
        graph.read(root_file, "crate".into(), None, true)?;
        graph.link();
        Ok(graph)
    }

    fn read(
        &mut self,
        file: &Path,
        name: String,
        parent: Option<usize>,
        owns_dir: bool,
    ) -> Result<usize, String> {
        let source = fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let code = cut_test_items(&blank_literals(&source));
        let index = self.modules.len();
        self.modules.push(Module {
            name: name.clone(),
            file: file.to_path_buf(),
            parent,
            children: BTreeMap::new(),
            test_children: BTreeSet::new(),
            aliases: BTreeMap::new(),
            references: Vec::new(),
        });
        let inline = inline_modules(&code);
        let (uses, rest) = use_statements(&code);
        for (at, tree) in uses {
            for (path, alias) in expand_use(&tree) {
                let line = line_of(&code, at);
                let depth = depth_at(&inline, at);
                if let Some(alias) = alias {
                    self.modules[index].aliases.insert(alias, path.clone());
                }
                self.modules[index].references.push((line, depth, path));
            }
        }
        let dir = if owns_dir {
            file.parent().unwrap_or(Path::new(".")).to_path_buf()
        } else {
            file.with_extension("")
        };
        for (child, test_only) in child_declarations(&source) {
            if test_only {
                self.modules[index].test_children.insert(child);
                continue;
            }
            let flat = dir.join(format!("{child}.rs"));
            let nested = dir.join(&child).join("mod.rs");
            let (child_file, owns) = if flat.is_file() {
                (flat, false)
            } else if nested.is_file() {
                (nested, true)
            } else {
                return Err(format!(
                    "{}: `mod {child};` has neither {} nor {}",
                    file.display(),
                    flat.display(),
                    nested.display()
                ));
            };
            let child_name = if name == "crate" {
                child.clone()
            } else {
                format!("{name}::{child}")
            };
            let child_index = self.read(&child_file, child_name, Some(index), owns)?;
            self.modules[index].children.insert(child, child_index);
        }
        let children: BTreeSet<String> = self.modules[index].children.keys().cloned().collect();
        for (at, path) in code_paths(&rest, &children, &self.modules[index].test_children) {
            let line = line_of(&code, at);
            let depth = depth_at(&inline, at);
            self.modules[index].references.push((line, depth, path));
        }
        Ok(index)
    }

    fn link(&mut self) {
        for from in 0..self.modules.len() {
            let references = std::mem::take(&mut self.modules[from].references);
            for (line, depth, path) in &references {
                let place = format!(
                    "{}:{line} names {}",
                    self.modules[from].file.display(),
                    path.join("::")
                );
                match self.resolve(from, path, *depth, 0) {
                    Target::Module(to) if to != from => {
                        self.edges.entry((from, to)).or_insert(place);
                    }
                    Target::TestOnly(module) => self
                        .test_imports
                        .push(format!("{place}: {module} is a test-only module")),
                    _ => {}
                }
            }
            self.modules[from].references = references;
        }
    }

    /// Where `path`, named in module `from` at `depth` inline modules
    /// down, leads.
    fn resolve(&self, from: usize, path: &[String], depth: usize, hops: usize) -> Target {
        if hops > 16 || path.is_empty() {
            return Target::Outside;
        }
        let (mut at, mut rest) = match path[0].as_str() {
            "crate" => (0, &path[1..]),
            "self" => (from, &path[1..]),
            "super" => {
                let supers = path.iter().take_while(|s| *s == "super").count();
                let mut at = from;
                for _ in 0..supers.saturating_sub(depth) {
                    match self.modules[at].parent {
                        Some(parent) => at = parent,
                        None => return Target::Outside,
                    }
                }
                (at, &path[supers..])
            }
            first => {
                let module = &self.modules[from];
                if let Some(&child) = module.children.get(first) {
                    (child, &path[1..])
                } else if module.test_children.contains(first) {
                    return Target::TestOnly(first.to_string());
                } else if let Some(alias) = module.aliases.get(first) {
                    if alias.len() == 1 && alias[0] == *first {
                        return Target::Outside;
                    }
                    let whole: Vec<String> = alias.iter().chain(&path[1..]).cloned().collect();
                    return self.resolve(from, &whole, 0, hops + 1);
                } else {
                    return Target::Outside;
                }
            }
        };
        while let Some(segment) = rest.first() {
            let module = &self.modules[at];
            if segment == "self" || segment == "*" {
                break;
            }
            if let Some(&child) = module.children.get(segment) {
                at = child;
                rest = &rest[1..];
                continue;
            }
            if module.test_children.contains(segment) {
                return Target::TestOnly(format!("{}::{segment}", module.name));
            }
            if let Some(alias) = module.aliases.get(segment) {
                let whole: Vec<String> = alias.iter().chain(&rest[1..]).cloned().collect();
                return match self.resolve(at, &whole, 0, hops + 1) {
                    Target::Outside => Target::Module(at),
                    found => found,
                };
            }
            break;
        }
        Target::Module(at)
    }

    /// Loops (one per strongly connected group, shortest first) and
    /// test-only modules named by production code.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = self.test_imports.clone();
        for group in self.strongly_connected() {
            if group.len() < 2 {
                continue;
            }
            let cycle = self.shortest_cycle(&group);
            let names: Vec<&str> = cycle
                .iter()
                .chain(cycle.first())
                .map(|&m| self.modules[m].name.as_str())
                .collect();
            let mut text = format!("loop: {}", names.join(" -> "));
            if group.len() > cycle.len() {
                let mut members: Vec<&str> = group
                    .iter()
                    .map(|&m| self.modules[m].name.as_str())
                    .collect();
                members.sort_unstable();
                let _ = write!(text, " (one of the loops among {})", members.join(", "));
            }
            for (i, &module) in cycle.iter().enumerate() {
                let next = cycle[(i + 1) % cycle.len()];
                let _ = write!(text, "\n    {}", self.edges[&(module, next)]);
            }
            problems.push(text);
        }
        problems
    }

    fn successors(&self, module: usize) -> impl Iterator<Item = usize> + '_ {
        self.edges
            .range((module, 0)..(module + 1, 0))
            .map(|(&(_, to), _)| to)
    }

    /// Tarjan's strongly connected components.
    fn strongly_connected(&self) -> Vec<Vec<usize>> {
        struct State {
            index: Vec<Option<usize>>,
            low: Vec<usize>,
            on_stack: Vec<bool>,
            stack: Vec<usize>,
            next: usize,
            groups: Vec<Vec<usize>>,
        }
        fn visit(graph: &Graph, v: usize, s: &mut State) {
            s.index[v] = Some(s.next);
            s.low[v] = s.next;
            s.next += 1;
            s.stack.push(v);
            s.on_stack[v] = true;
            for w in graph.successors(v).collect::<Vec<_>>() {
                match s.index[w] {
                    None => {
                        visit(graph, w, s);
                        s.low[v] = s.low[v].min(s.low[w]);
                    }
                    Some(index) if s.on_stack[w] => s.low[v] = s.low[v].min(index),
                    _ => {}
                }
            }
            if Some(s.low[v]) == s.index[v] {
                let mut group = Vec::new();
                while let Some(w) = s.stack.pop() {
                    s.on_stack[w] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                s.groups.push(group);
            }
        }
        let n = self.modules.len();
        let mut state = State {
            index: vec![None; n],
            low: vec![0; n],
            on_stack: vec![false; n],
            stack: Vec::new(),
            next: 0,
            groups: Vec::new(),
        };
        for v in 0..n {
            if state.index[v].is_none() {
                visit(self, v, &mut state);
            }
        }
        state.groups
    }

    /// The shortest cycle within `group`, by breadth-first search.
    fn shortest_cycle(&self, group: &[usize]) -> Vec<usize> {
        let inside: BTreeSet<usize> = group.iter().copied().collect();
        let mut best: Option<Vec<usize>> = None;
        for &start in group {
            let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
            let mut queue = VecDeque::from([start]);
            'search: while let Some(v) = queue.pop_front() {
                for w in self.successors(v) {
                    if !inside.contains(&w) {
                        continue;
                    }
                    if w == start {
                        let mut cycle = vec![v];
                        let mut at = v;
                        while at != start {
                            at = came_from[&at];
                            cycle.push(at);
                        }
                        cycle.reverse();
                        if best.as_ref().is_none_or(|b| cycle.len() < b.len()) {
                            best = Some(cycle);
                        }
                        break 'search;
                    }
                    if let std::collections::btree_map::Entry::Vacant(e) = came_from.entry(w) {
                        e.insert(v);
                        queue.push_back(w);
                    }
                }
            }
        }
        best.unwrap_or_default()
    }
}

/// `source` with comments, string and character literals blanked (their
/// bytes become spaces; lines kept), so that braces and paths can be read.
fn blank_literals(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = bytes.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = source[i..].find('\n').map_or(bytes.len(), |e| i + e);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                let mut j = i;
                while j < bytes.len() {
                    if bytes[j..].starts_with(b"/*") {
                        depth += 1;
                        j += 2;
                    } else if bytes[j..].starts_with(b"*/") {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'r' if raw_string_start(bytes, i).is_some() => {
                let (hashes, open) = raw_string_start(bytes, i).unwrap_or((0, i));
                let close = format!("\"{}", "#".repeat(hashes));
                let end = source[open + 1..]
                    .find(&close)
                    .map_or(bytes.len(), |e| open + 1 + e + close.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != b'"' {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                let end = (j + 1).min(bytes.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'\'' => {
                // A character literal ('x', '\n', '\u{..}'), else a lifetime.
                let end = if bytes.get(i + 1) == Some(&b'\\') {
                    source[i + 2..].find('\'').map(|e| i + 2 + e + 1)
                } else {
                    let c = source[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (bytes.get(i + 1 + c) == Some(&b'\'')).then_some(i + 2 + c)
                };
                match end {
                    Some(end) => {
                        blank(&mut out, i, end);
                        i = end;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Where a raw string starting at `i` opens: (its hashes, the quote).
fn raw_string_start(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
        return None;
    }
    let mut j = i + 1;
    if bytes.get(j) == Some(&b'b') {
        return None;
    }
    while bytes.get(j) == Some(&b'#') {
        j += 1;
    }
    (bytes.get(j) == Some(&b'"')).then_some((j - i - 1, j))
}

/// `code` (literals blanked) with every item under `#[cfg(test)]` blanked.
fn cut_test_items(code: &str) -> String {
    let mut out = code.as_bytes().to_vec();
    let mut from = 0;
    while let Some(found) = code[from..].find("#[cfg(test)]") {
        let start = from + found;
        let end = item_end(code, start + "#[cfg(test)]".len());
        for b in &mut out[start..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
        from = end.max(start + 1);
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The end of the item that starts at `from` (after its attributes): its
/// `;`, or its block's closing brace.
fn item_end(code: &str, from: usize) -> usize {
    let bytes = code.as_bytes();
    let mut i = from;
    let mut depth = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'[' | b'(' => depth += 1,
            b']' | b')' => depth = depth.saturating_sub(1),
            b';' if depth == 0 => return i + 1,
            b'{' if depth == 0 => return matching_brace(code, i) + 1,
            _ => {}
        }
        i += 1;
    }
    bytes.len()
}

/// The index of the brace that closes the one at `open`.
fn matching_brace(code: &str, open: usize) -> usize {
    let mut depth = 0usize;
    for (i, b) in code.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    code.len().saturating_sub(1)
}

/// The byte ranges of inline modules (`mod name { .. }`).
fn inline_modules(code: &str) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    for (at, _) in words(code).filter(|(_, w)| *w == "mod") {
        let after = &code[at + 3..];
        let name_len = after
            .trim_start()
            .find(|c: char| !(c.is_alphanumeric() || c == '_'));
        let skipped = after.len() - after.trim_start().len();
        if let Some(len) = name_len {
            let rest = &after[skipped + len..];
            if rest.trim_start().starts_with('{') {
                let open = at + 3 + skipped + len + (rest.len() - rest.trim_start().len());
                ranges.push((open, matching_brace(code, open)));
            }
        }
    }
    ranges
}

fn depth_at(inline: &[(usize, usize)], at: usize) -> usize {
    inline.iter().filter(|(o, c)| *o < at && at < *c).count()
}

/// The words of `code` and where each starts.
fn words(code: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = code.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let prefixed = start > 0 && matches!(bytes[start - 1], b'$' | b'\'');
                if !prefixed {
                    return Some((start, &code[start..i]));
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

/// The `use` statements of `code` (where each starts, its tree) and the
/// code with them blanked.
fn use_statements(code: &str) -> (Vec<(usize, String)>, String) {
    let mut uses = Vec::new();
    let mut rest = code.as_bytes().to_vec();
    for (at, _) in words(code).filter(|(_, w)| *w == "use") {
        let before = code[..at].trim_end();
        let starts_item = before.is_empty()
            || before.ends_with([';', '{', '}', ')', ']'])
            || before.ends_with("pub");
        if !starts_item {
            continue;
        }
        let Some(end) = code[at..].find(';').map(|e| at + e) else {
            continue;
        };
        uses.push((at, code[at + 3..end].to_string()));
        for b in &mut rest[at..end] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    (uses, String::from_utf8_lossy(&rest).into_owned())
}

/// The paths of a use tree, each with the name it brings in (none for a
/// glob).
fn expand_use(tree: &str) -> Vec<(Vec<String>, Option<String>)> {
    let tokens = use_tokens(tree);
    let mut out = Vec::new();
    let mut at = 0;
    expand_from(&tokens, &mut at, &[], &mut out);
    out
}

fn use_tokens(tree: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in tree.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if matches!(c, '{' | '}' | ',' | '*') {
            tokens.push(c.to_string());
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    tokens
}

/// One use tree from `tokens[*at]`, under `prefix`.
fn expand_from(
    tokens: &[String],
    at: &mut usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix.to_vec();
    loop {
        match tokens.get(*at).map(String::as_str) {
            None | Some(",") | Some("}") => break,
            Some("{") => {
                *at += 1;
                loop {
                    if tokens.get(*at).map(String::as_str) == Some("}") {
                        *at += 1;
                        break;
                    }
                    expand_from(tokens, at, &path, out);
                    match tokens.get(*at).map(String::as_str) {
                        Some(",") => *at += 1,
                        Some("}") => {
                            *at += 1;
                            break;
                        }
                        _ => break,
                    }
                }
                return;
            }
            Some("*") => {
                *at += 1;
                path.push("*".into());
                out.push((path, None));
                return;
            }
            Some("as") => {
                let alias = tokens.get(*at + 1).cloned().filter(|a| a != "_");
                *at += 2;
                out.push((path, alias));
                return;
            }
            Some(name) => {
                path.push(name.to_string());
                *at += 1;
            }
        }
    }
    if path.len() > prefix.len() {
        let alias = match path.last().map(String::as_str) {
            Some("self") => path.iter().rev().nth(1).cloned(),
            _ => path.last().cloned(),
        };
        out.push((path, alias));
    }
}

/// Child modules declared with `mod name;` in `source`, and whether each
/// is for tests only.
fn child_declarations(source: &str) -> Vec<(String, bool)> {
    let code = blank_literals(source);
    let mut children = Vec::new();
    for (at, _) in words(&code).filter(|(_, w)| *w == "mod") {
        let after = code[at + 3..].trim_start();
        let len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if len == 0 || !after[len..].trim_start().starts_with(';') {
            continue;
        }
        // The attributes just before it (the previous item ends at `;`,
        // `}` or the start).
        let head = &code[..at];
        let item_start = head.rfind([';', '}']).map_or(0, |i| i + 1);
        let attributes = &head[item_start..];
        let test_only = attributes.contains("cfg(test)");
        children.push((after[..len].to_string(), test_only));
    }
    children
}

/// Paths in code (not `use`) that start with `crate`, `super`, `self` or
/// a child's name, with where each starts.
fn code_paths(
    code: &str,
    children: &BTreeSet<String>,
    test_children: &BTreeSet<String>,
) -> Vec<(usize, Vec<String>)> {
    let bytes = code.as_bytes();
    let mut paths = Vec::new();
    let mut skip_until = 0;
    for (at, word) in words(code) {
        if at < skip_until {
            continue;
        }
        let starts = matches!(word, "crate" | "super" | "self")
            || children.contains(word)
            || test_children.contains(word);
        let after_colons = at >= 2 && &code[at - 2..at] == "::";
        if !starts || after_colons {
            continue;
        }
        if is_visibility(&code[..at]) {
            continue;
        }
        let mut path = vec![word.to_string()];
        let mut i = at + word.len();
        while code[i..].starts_with("::") {
            let rest = &code[i + 2..];
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            if len == 0 {
                break;
            }
            path.push(rest[..len].to_string());
            i += 2 + len;
        }
        skip_until = i;
        if path.len() > 1 || bytes.get(i) == Some(&b'!') {
            paths.push((at, path));
        }
    }
    paths
}

/// Whether the path after `before` is a visibility: `pub(crate)`,
/// `pub(super)`, `pub(in crate::x)`.
fn is_visibility(before: &str) -> bool {
    let mut rest = before.trim_end();
    if let Some(stripped) = rest.strip_suffix("in") {
        if stripped.ends_with(|c: char| c.is_whitespace() || c == '(') {
            rest = stripped.trim_end();
        }
    }
    rest.strip_suffix('(')
        .is_some_and(|r| r.trim_end().ends_with("pub"))
}

fn line_of(code: &str, at: usize) -> usize {
    code[..at].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crate written into a temporary folder: (file, source) pairs.
    fn crate_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Graph) {
        let dir = tempfile::tempdir().unwrap();
        for (file, source) in files {
            let path = dir.path().join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, source).unwrap();
        }
        let graph = Graph::load(&dir.path().join("lib.rs")).unwrap();
        (dir, graph)
    }

    fn imports(graph: &Graph) -> Vec<String> {
        graph
            .edges
            .keys()
            .map(|&(a, b)| format!("{} -> {}", graph.modules[a].name, graph.modules[b].name))
            .collect()
    }

    #[test]
    fn a_loop_through_a_reexport_is_found_with_its_places() {
        let (_dir, graph) = crate_of(&[
            ("lib.rs", "mod a;\nmod b;\nmod c;\npub use c::Thing;\n"),
            ("a.rs", "use crate::b::helper;\npub fn f() { helper() }\n"),
            ("b.rs", "pub fn helper() { let _ = crate::Thing; }\n"),
            ("c.rs", "pub struct Thing;\nfn g() { super::a::f() }\n"),
        ]);
        assert_eq!(
            imports(&graph),
            ["crate -> c", "a -> b", "b -> c", "c -> a"]
        );
        let problems = graph.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        // The loop, from whichever module, with where each step is named.
        let text = &problems[0];
        assert!(
            ["a -> b -> c -> a", "b -> c -> a -> b", "c -> a -> b -> c"]
                .iter()
                .any(|cycle| text.starts_with(&format!("loop: {cycle}"))),
            "{text}"
        );
        for place in [
            "a.rs:1 names crate::b::helper",
            "b.rs:1 names crate::Thing",
            "c.rs:2 names super::a::f",
        ] {
            assert!(text.contains(place), "{text}");
        }
    }

    #[test]
    fn test_code_comments_strings_and_visibility_are_not_imports() {
        let (_dir, graph) = crate_of(&[
            (
                "lib.rs",
                "mod a;\nmod b;\n#[cfg(test)]\nmod tests;\n\
                 pub(crate) fn root() {}\n",
            ),
            (
                "a.rs",
                "// crate::b::x\npub(super) fn f() -> &'static str { \"crate::b::x\" }\n\
                 #[cfg(test)]\nmod tests { use crate::b::x; }\n\
                 #[cfg(test)]\nuse crate::b::y;\n\
                 mod imp { pub(in crate::a) fn g() { super::f(); } }\n\
                 const C: char = '{';\n",
            ),
            ("b.rs", "pub fn x() { crate::a::f(); }\nfn y() {}\n"),
            ("tests.rs", "use super::*;\n"),
        ]);
        assert_eq!(imports(&graph), ["b -> a"]);
        assert!(graph.problems().is_empty());
    }

    #[test]
    fn production_code_naming_a_test_module_is_reported() {
        let (_dir, graph) = crate_of(&[
            ("lib.rs", "mod a;\n#[cfg(test)]\nmod helpers;\n"),
            ("a.rs", "use crate::helpers::board;\n"),
            ("helpers.rs", "pub fn board() {}\n"),
        ]);
        let problems = graph.problems();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            problems[0].contains("helpers is a test-only module"),
            "{}",
            problems[0]
        );
    }

    #[test]
    fn nested_folders_groups_and_child_paths_resolve() {
        let (_dir, graph) = crate_of(&[
            (
                "lib.rs",
                "mod engine;\npub use engine::{beam::{self, Beam as B}, Top};\n",
            ),
            (
                "engine/mod.rs",
                "mod beam;\nmod ida;\npub struct Top;\nfn f() { ida::run() }\n",
            ),
            ("engine/beam.rs", "pub struct Beam;\n"),
            ("engine/ida.rs", "use super::beam::Beam;\npub fn run() {}\n"),
        ]);
        assert_eq!(
            imports(&graph),
            [
                "crate -> engine",
                "crate -> engine::beam",
                "engine -> engine::ida",
                "engine::ida -> engine::beam"
            ]
        );
    }

    /// The check that `cargo xtask imports` runs, over this workspace.
    #[test]
    fn the_workspace_has_no_import_loops() {
        let root = crate::workspace::root();
        let crates = workspace_crates(&root);
        assert!(crates.len() >= 9, "{crates:?}");
        let mut problems = Vec::new();
        let mut modules = 0;
        for (name, root_file) in crates {
            let graph = Graph::load(&root_file).unwrap();
            modules += graph.modules.len();
            problems.extend(graph.problems().into_iter().map(|p| format!("{name}: {p}")));
        }
        // Every module file was found and read.
        assert!(modules > 100, "{modules} modules");
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }
}
