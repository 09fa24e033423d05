pub mod error;
pub mod hash;
pub mod heap;
pub mod partition;
pub mod rhh;
pub mod store;
pub mod updates;
