//! Per-block and whole-file xxh3-64 checksums, computed while a file is
//! written and checked by `outcore info --verify`.

use crate::{IoError, SeqReader};
use std::convert::Infallible;
use std::path::Path;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// Block size of the per-block checksums recorded in the manifest: the
/// chunk of the store's sequential readers, so that a reader checks each
/// block from the chunk it read, with no read of its own (stores written
/// before used 8 MiB blocks; those are checked with a separate read of each
/// block the first time it is used).
pub const CHECKSUM_BLOCK_BYTES: u64 = 1 << 20;

/// Checksums of one file: the whole file and each `block_bytes` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockHashes {
    pub bytes: u64,
    pub block_bytes: u64,
    pub file: u64,
    pub blocks: Vec<u64>,
}

/// Hashes a stream in fixed-size blocks, in any chunking: each finished
/// block's xxh3-64 goes to a sink as soon as its last byte arrives.
pub struct BlockSplitter {
    block_bytes: u64,
    /// The open block's hash state, `in_block` bytes in.
    block: Xxh3,
    in_block: u64,
    total: u64,
}

impl BlockSplitter {
    pub fn new(block_bytes: u64) -> Self {
        BlockSplitter { block_bytes, block: Xxh3::new(), in_block: 0, total: 0 }
    }
    /// Bytes fed so far.
    pub fn total(&self) -> u64 {
        self.total
    }
    pub fn update<E>(&mut self, mut data: &[u8], mut sink: impl FnMut(u64) -> Result<(), E>) -> Result<(), E> {
        self.total += data.len() as u64;
        while !data.is_empty() {
            if self.in_block == 0 && data.len() as u64 >= self.block_bytes {
                // a whole block in one piece: hashed in one call
                let (block, rest) = data.split_at(self.block_bytes as usize);
                sink(xxh3_64(block))?;
                data = rest;
                continue;
            }
            let take = ((self.block_bytes - self.in_block) as usize).min(data.len());
            self.block.update(&data[..take]);
            self.in_block += take as u64;
            data = &data[take..];
            if self.in_block == self.block_bytes {
                sink(self.block.digest())?;
                self.block.reset();
                self.in_block = 0;
            }
        }
        Ok(())
    }
    /// The last short block's hash, or the empty stream's one block.
    pub fn finish<E>(self, mut sink: impl FnMut(u64) -> Result<(), E>) -> Result<(), E> {
        if self.in_block > 0 || self.total == 0 {
            sink(self.block.digest())?;
        }
        Ok(())
    }
}

/// Streaming hasher: feed bytes in any chunking, get [`BlockHashes`].
pub struct BlockHasher {
    whole: Xxh3,
    blocks: BlockSplitter,
    hashes: Vec<u64>,
}

impl BlockHasher {
    pub fn new(block_bytes: u64) -> Self {
        BlockHasher { whole: Xxh3::new(), blocks: BlockSplitter::new(block_bytes), hashes: Vec::new() }
    }
    pub fn update(&mut self, data: &[u8]) {
        self.whole.update(data);
        let hashes = &mut self.hashes;
        let Ok(()) = self.blocks.update(data, |h| {
            hashes.push(h);
            Ok::<(), Infallible>(())
        });
    }
    pub fn finish(mut self) -> BlockHashes {
        let (bytes, block_bytes) = (self.blocks.total(), self.blocks.block_bytes);
        let hashes = &mut self.hashes;
        let Ok(()) = self.blocks.finish(|h| {
            hashes.push(h);
            Ok::<(), Infallible>(())
        });
        BlockHashes { bytes, block_bytes, file: self.whole.digest(), blocks: self.hashes }
    }
}

/// A block whose checksum does not match.
#[derive(Debug, thiserror::Error)]
pub enum ChecksumMismatch {
    #[error("size is {actual} bytes, manifest says {expected}")]
    Size { expected: u64, actual: u64 },
    #[error("checksum mismatch in block {block} (bytes {start}..{end})")]
    Block { block: usize, start: u64, end: u64 },
    #[error(transparent)]
    Io(#[from] IoError),
}

/// Hash a file on disk block by block (reading with O_DIRECT).
pub fn hash_file_blocks(path: &Path, block_bytes: u64) -> Result<BlockHashes, IoError> {
    let mut reader = SeqReader::open_unchecked(path, 4 << 20)?;
    let mut hasher = BlockHasher::new(block_bytes);
    while let Some(chunk) = reader.next_chunk()? {
        hasher.update(chunk);
    }
    Ok(hasher.finish())
}

/// [`hash_file_blocks`] in `block_bytes` blocks and in pages of
/// `page_bytes` both, in one read of the file.
pub fn hash_file_blocks_and_pages(path: &Path, block_bytes: u64, page_bytes: u64) -> Result<(BlockHashes, BlockHashes), IoError> {
    let mut reader = SeqReader::open_unchecked(path, 4 << 20)?;
    // the whole file's hash once, beside both splits
    let (mut blocks, mut pages, mut page_hashes) = (BlockHasher::new(block_bytes), BlockSplitter::new(page_bytes), Vec::new());
    let mut keep = |h| {
        page_hashes.push(h);
        Ok::<(), Infallible>(())
    };
    while let Some(chunk) = reader.next_chunk()? {
        blocks.update(chunk);
        let Ok(()) = pages.update(chunk, &mut keep);
    }
    let bytes = pages.total();
    let Ok(()) = pages.finish(&mut keep);
    let blocks = blocks.finish();
    let pages = BlockHashes { bytes, block_bytes: page_bytes, file: blocks.file, blocks: page_hashes };
    Ok((blocks, pages))
}

impl BlockHashes {
    /// Compare with an expected record; the first differing block is named.
    pub fn check_against(&self, expected: &BlockHashes) -> Result<(), ChecksumMismatch> {
        if self.bytes != expected.bytes {
            return Err(ChecksumMismatch::Size { expected: expected.bytes, actual: self.bytes });
        }
        for (i, (a, b)) in self.blocks.iter().zip(&expected.blocks).enumerate() {
            if a != b {
                let start = i as u64 * self.block_bytes;
                return Err(ChecksumMismatch::Block { block: i, start, end: (start + self.block_bytes).min(self.bytes) });
            }
        }
        if self.file != expected.file || self.blocks.len() != expected.blocks.len() {
            return Err(ChecksumMismatch::Block { block: 0, start: 0, end: self.bytes });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunking_does_not_change_hashes() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let mut a = BlockHasher::new(4096);
        a.update(&data);
        let mut b = BlockHasher::new(4096);
        for c in data.chunks(1000) {
            b.update(c);
        }
        let (a, b) = (a.finish(), b.finish());
        assert_eq!(a, b);
        assert_eq!(a.blocks.len(), 100_000usize.div_ceil(4096));
        assert_eq!(a.file, xxh3_64(&data));
        assert_eq!(a.blocks[1], xxh3_64(&data[4096..8192]));
    }
}
