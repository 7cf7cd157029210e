//! The self-supervised set-network spymaster (`../shared/reference/set-network-spymaster.md`):
//! set networks over the team's chosen cards and the enemy's, an MLP that turns them and the
//! assassin into a clue vector, margin losses against enemy cards, civilians and the assassin
//! over every non-empty subset of the team, and games mined on the fly from the card words.
//!
//! One job: the model and its training. The embedding it works in comes from the relatedness
//! the pipeline stored ([`space`]); the `setnet` stage (crate `pipeline`) trains it and stores
//! the weights, and the `setnet` strategy (crate `query`) answers boards with [`infer::Model`].
//! Tensors and gradients are candle's (pure Rust, CPU): no hand-written backpropagation.

pub mod bf16;
pub mod infer;
pub mod kernel;
pub mod model;
pub mod rng;
pub mod space;
pub mod subsets;
pub mod train;
pub mod weights;

pub use infer::Model;
pub use model::Alphas;
pub use space::Space;
pub use train::{Params, Trained, train};
pub use weights::Tensor;
