//! One union-find over `0..n`, for clusterings and template groups.

/// Disjoint sets of `0..n` with path halving and union by size: near
/// constant time per operation however the joins arrive.
pub struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    /// `n` singletons.
    pub fn new(n: usize) -> Self {
        let n = u32::try_from(n).expect("a union-find holds at most u32::MAX elements");
        UnionFind {
            parent: (0..n).collect(),
            size: vec![1; n as usize],
        }
    }

    /// The root of `x`'s set.
    pub fn find(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let grandparent = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grandparent;
            x = grandparent;
        }
        x
    }

    /// Joins the sets of `a` and `b`: `(kept, absorbed)` roots, the kept
    /// one of the larger set (of `a`'s on a tie), or `None` when they were
    /// one set already. Callers keeping per-set data move it from the
    /// absorbed root to the kept one.
    pub fn union(&mut self, a: u32, b: u32) -> Option<(u32, u32)> {
        let (mut kept, mut absorbed) = (self.find(a), self.find(b));
        if kept == absorbed {
            return None;
        }
        if self.size[kept as usize] < self.size[absorbed as usize] {
            std::mem::swap(&mut kept, &mut absorbed);
        }
        self.parent[absorbed as usize] = kept;
        self.size[kept as usize] += self.size[absorbed as usize];
        Some((kept, absorbed))
    }

    /// How many elements the set of root `root` holds.
    pub fn size_of_root(&self, root: u32) -> u32 {
        self.size[root as usize]
    }

    /// Each element's set named by its least element, so that labels do not
    /// depend on the order of the joins and two labellings compare with `==`.
    pub fn least_labels(&mut self) -> Vec<u32> {
        let n = self.parent.len() as u32;
        let mut least = vec![u32::MAX; n as usize];
        let roots: Vec<u32> = (0..n).map(|x| self.find(x)).collect();
        for (x, &r) in roots.iter().enumerate() {
            // Ascending x: the first element seen of a set is its least.
            if least[r as usize] == u32::MAX {
                least[r as usize] = x as u32;
            }
        }
        roots.iter().map(|&r| least[r as usize]).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_keeps_the_larger_set_and_reports_joins() {
        let mut sets = UnionFind::new(6);
        assert_eq!(sets.union(0, 1), Some((0, 1)));
        // {0, 1} is larger than {2}: its root stays whichever side it is on.
        assert_eq!(sets.union(2, 1), Some((0, 2)));
        assert_eq!(sets.union(2, 0), None);
        let root = sets.find(2);
        assert_eq!(sets.size_of_root(root), 3);
        assert_eq!(sets.find(3), 3);
        assert_eq!(sets.size_of_root(3), 1);
    }

    #[test]
    fn least_labels_name_sets_by_their_least_element() {
        let mut sets = UnionFind::new(7);
        sets.union(5, 6);
        sets.union(6, 2);
        sets.union(4, 3);
        assert_eq!(sets.least_labels(), vec![0, 1, 2, 3, 3, 2, 2]);
    }
}
