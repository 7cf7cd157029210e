//! Named tensors as the database stores them: a name, a shape, little-endian `f32` data
//! (`setnet_weights(name, shape, data)`, db/README.md). Parsing checks everything a tampered
//! table could break and names the tensor: a bad table is an error, never a panic.

use anyhow::{Result, bail};

/// One named tensor, row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    pub name: String,
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

impl Tensor {
    pub fn new(name: &str, shape: Vec<usize>, data: Vec<f32>) -> Tensor {
        Tensor {
            name: name.to_string(),
            shape,
            data,
        }
    }

    /// The shape as stored: dimensions joined by `x` (`64x32`).
    pub fn shape_text(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(usize::to_string).collect();
        dims.join("x")
    }

    /// The data as stored: 4 little-endian bytes per value.
    pub fn bytes(&self) -> Vec<u8> {
        self.data.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// From a stored row; the shape must be `x`-joined dimensions whose product is the number
    /// of values, and every value finite.
    pub fn from_stored(name: &str, shape: &str, bytes: &[u8]) -> Result<Tensor> {
        let dims: Vec<usize> = shape
            .split('x')
            .map(|d| d.trim().parse::<usize>())
            .collect::<Result<_, _>>()
            .map_err(|_| anyhow::anyhow!("tensor {name:?}: shape {shape:?} is not like 64x32"))?;
        let n = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
        if !bytes.len().is_multiple_of(4) || n != Some(bytes.len() / 4) {
            bail!(
                "tensor {name:?}: {} bytes of data for shape {shape} ({} values of 4 bytes expected)",
                bytes.len(),
                n.map_or("too many".to_string(), |n| n.to_string())
            );
        }
        let data: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        if let Some(i) = data.iter().position(|x| !x.is_finite()) {
            bail!("tensor {name:?}: value {i} is not a finite number");
        }
        Ok(Tensor::new(name, dims, data))
    }
}

/// Takes the tensor `name` of shape `shape` out of `all`, or says which is missing or wrong.
pub fn take(all: &[Tensor], name: &str, shape: &[usize]) -> Result<Vec<f32>> {
    let Some(t) = all.iter().find(|t| t.name == name) else {
        bail!("no tensor {name:?}");
    };
    if t.shape != shape {
        bail!(
            "tensor {name:?} has shape {}, expected {shape:?}",
            t.shape_text()
        );
    }
    Ok(t.data.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_form_round_trips_and_bad_rows_are_errors() {
        let t = Tensor::new("w", vec![2, 3], vec![1.0, -2.5, 0.0, 3.25, 1e-7, -0.0]);
        let back = Tensor::from_stored("w", &t.shape_text(), &t.bytes()).unwrap();
        assert_eq!(back, t);
        assert_eq!(t.shape_text(), "2x3");
        assert!(Tensor::from_stored("w", "2x2", &t.bytes()).is_err());
        assert!(Tensor::from_stored("w", "two", &t.bytes()).is_err());
        assert!(Tensor::from_stored("w", "2x3", &t.bytes()[..23]).is_err());
        let nan = f32::NAN.to_le_bytes();
        assert!(Tensor::from_stored("w", "1", &nan).is_err());
        assert!(take(std::slice::from_ref(&t), "w", &[3, 2]).is_err());
        assert!(take(&[t], "v", &[2, 3]).is_err());
    }
}
